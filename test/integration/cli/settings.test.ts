import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { configGet, configSet, configShow } from '../../../src/cli/commands/config-cli.js';
import { initCommand, resetCommand } from '../../../src/cli/commands/init-cli.js';
import { instructionsFiles, instructionsShow } from '../../../src/cli/commands/instructions-cli.js';
import { trustCommand } from '../../../src/cli/commands/trust.js';
import type { CommandIo } from '../../../src/cli/io.js';
import { runCommand, runJson } from '../../support/cli-io.js';
import { useTempProject } from '../../support/project.js';
import { runCli } from '../../support/synapse.js';

/** `synapse init | reset | config | instructions`, in-process on a temp HOME and project; a bad file through the built CLI. */

const ctx = useTempProject();
const io = (extra: { terminal?: boolean; answers?: boolean[]; env?: NodeJS.ProcessEnv } = {}) => ({
  env: { ...ctx.project.env, ...extra.env },
  cwd: ctx.project.dir,
  ...(extra.terminal ? { terminal: true } : {}),
  ...(extra.answers ? { answers: extra.answers } : {}),
});
const run = (command: (io: CommandIo) => unknown, extra?: Parameters<typeof io>[0]) => runCommand(command, io(extra));
const projectDir = () => path.join(ctx.project.dir, '.synapse');
const TEMPLATES = ['default.md', 'file-safety.md', 'gemini.md', 'learning.md', 'proactive.md', 'settings.json'];

describe('synapse init / reset', () => {
  it('init copies every template into .synapse/, and never overwrites a file without --force', async () => {
    fs.mkdirSync(projectDir());
    fs.writeFileSync(path.join(projectDir(), 'default.md'), 'my own');
    const first = await runJson<{ written: string[]; kept: string[] }>((i) => initCommand({ json: true }, i), io());
    expect(first.kept).toEqual(['default.md']);
    for (const name of TEMPLATES) expect(first.written.includes(name) || name === 'default.md').toBe(true);
    expect(fs.readFileSync(path.join(projectDir(), 'default.md'), 'utf8')).toBe('my own');
    const again = await runJson<{ written: string[]; kept: string[] }>((i) => initCommand({ json: true }, i), io());
    expect(again.written).toEqual([]);
    const forced = await runJson<{ written: string[] }>((i) => initCommand({ json: true, force: true }, i), io());
    expect(forced.written).toContain('default.md');
    expect(fs.readFileSync(path.join(projectDir(), 'default.md'), 'utf8')).toContain('{{agent_id}}');
  });

  it('init --scope user writes to ~/.synapse', async () => {
    const r = await runJson<{ dir: string }>((i) => initCommand({ scope: 'user', json: true }, i), io());
    expect(r.dir).toBe(path.join(ctx.project.home, '.synapse'));
    expect(fs.existsSync(path.join(ctx.project.home, '.synapse', 'settings.json'))).toBe(true);
    expect((await run((i) => initCommand({ scope: 'local' }, i))).stderr).toContain('--scope must be one of user, project');
  });

  it('reset needs --yes without a terminal, asks on one, and removes settings.local.json', async () => {
    await run((i) => initCommand({}, i));
    fs.writeFileSync(path.join(projectDir(), 'settings.json'), '{"a2a":{"flow":"oneway"}}');
    fs.writeFileSync(path.join(projectDir(), 'settings.local.json'), '{}');
    const refused = await run((i) => resetCommand({}, i));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('pass --yes');
    const declined = await run((i) => resetCommand({}, i), { terminal: true, answers: [false] });
    expect(declined.stdout).toContain('nothing changed');
    expect(fs.readFileSync(path.join(projectDir(), 'settings.json'), 'utf8')).toContain('oneway');
    expect((await run((i) => resetCommand({ yes: true }, i))).code).toBe(0);
    expect(JSON.parse(fs.readFileSync(path.join(projectDir(), 'settings.json'), 'utf8')).a2a.flow).toBe('auto');
    expect(fs.existsSync(path.join(projectDir(), 'settings.local.json'))).toBe(false);
  });
});

describe('synapse config', () => {
  it('set writes the chosen scope, get and show report the merged value and where it came from', async () => {
    expect((await run((i) => configSet('a2a.flow', 'oneway', {}, i))).code).toBe(0);
    expect((await run((i) => configSet('a2a.flow', 'roundtrip', { scope: 'project' }, i))).code).toBe(0);
    const local = await run((i) => configSet('env.SYNAPSE_REPLY_GRACE', '12', { scope: 'local' }, i));
    expect(local.code).toBe(0);
    expect(local.stderr).toContain("the project's env and hooks apply only once you trust them as they are now: `synapse trust`");
    const got = await runJson((i) => configGet('a2a.flow', { json: true }, i), io());
    expect(got).toEqual({ key: 'a2a.flow', value: 'roundtrip', source: 'project', file: path.join(projectDir(), 'settings.json') });
    // Not trusted yet: the default applies, and show says what waits.
    expect((await run((i) => configGet('env.SYNAPSE_REPLY_GRACE', {}, i))).stdout).toBe('5\n');
    const untrusted = await runJson<Record<string, { value: unknown; source: string }>>((i) => configShow({ json: true }, i), io());
    expect(untrusted['env.SYNAPSE_REPLY_GRACE']).toMatchObject({ value: '5', source: 'default', withheld: { value: '12', source: 'local' } });
    expect((await run((i) => trustCommand({}, i))).code).toBe(0);
    expect((await run((i) => configGet('env.SYNAPSE_REPLY_GRACE', {}, i))).stdout).toBe('12\n');
    const shown = await runJson<Record<string, { value: unknown; source: string }>>((i) => configShow({ json: true }, i), io());
    expect(shown['env.SYNAPSE_REPLY_GRACE']).toEqual({ value: '12', source: 'local', file: path.join(projectDir(), 'settings.local.json') });
    expect(shown['approvalMode']).toEqual({ value: 'auto', source: 'default' });
    const user = await runJson<{ settings: unknown }>((i) => configShow({ json: true, scope: 'user' }, i), io());
    expect(user.settings).toEqual({ a2a: { flow: 'oneway' } });
    const table = await run((i) => configShow({}, i));
    expect(table.stdout).toMatch(/a2a\.flow\s+roundtrip\s+project \(/);
  });

  it('set refuses a bad value or an unknown key, and leaves the file as it was', async () => {
    await run((i) => configSet('approvalMode', 'required', { scope: 'project' }, i));
    const bad = await run((i) => configSet('approvalMode', 'sometimes', { scope: 'project' }, i));
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('approvalMode must be "required" | "auto"');
    expect(JSON.parse(fs.readFileSync(path.join(projectDir(), 'settings.json'), 'utf8'))).toEqual({ approvalMode: 'required' });
    expect((await run((i) => configSet('a2a.speed', 'fast', {}, i))).stderr).toContain('"a2a.speed" is not a setting');
    expect((await run((i) => configSet('env.SYNAPSE_NOPE', '1', {}, i))).stderr).toContain('SYNAPSE_NOPE is not a Synapse variable');
    expect((await run((i) => configSet('list.columns', 'ID,COLOUR', {}, i))).stderr).toContain('"COLOUR" is not a column');
  });

  it('an empty value removes the key; list.columns takes a comma-separated list', async () => {
    await run((i) => configSet('list.columns', 'id,name,status', { scope: 'project' }, i));
    expect(await runJson((i) => configGet('list.columns', { json: true }, i), io())).toMatchObject({ value: ['ID', 'NAME', 'STATUS'] });
    await run((i) => configSet('list.columns', '', { scope: 'project' }, i));
    expect(await runJson((i) => configGet('list.columns', { json: true }, i), io())).toMatchObject({ source: 'default' });
  });
});

describe('synapse instructions', () => {
  it('show renders the profile instruction; files says which files and where', async () => {
    const shown = await runJson<{ text: string }>((i) => instructionsShow('gemini', { json: true }, i), io());
    expect(shown.text).toContain('synapse-gemini-');
    const files = await runJson<{ name: string; source: string }[]>(
      (i) => instructionsFiles('claude', { json: true }, i),
      io({ env: { SYNAPSE_PROACTIVE_MODE_ENABLED: '1' } }),
    );
    expect(files.map((f) => [f.name, f.source])).toEqual([
      ['default.md', 'package'],
      ['proactive.md', 'package'],
    ]);
    expect((await run((i) => instructionsShow('nope', {}, i))).code).toBe(2);
  });
});

describe('a bad settings file, through the built CLI', () => {
  it('stops a command with the file, the key and the expected type; config still runs to repair it', async () => {
    fs.mkdirSync(projectDir());
    const file = path.join(projectDir(), 'settings.json');
    fs.writeFileSync(file, JSON.stringify({ list: { columns: 'ID' } }));
    const listed = await runCli(['list'], { env: ctx.project.env, cwd: ctx.project.dir });
    expect(listed.code).toBe(1);
    expect(listed.stderr).toContain(`settings file ${file}: list.columns must be array of "ID"`);
    const fixed = await runCli(['config', 'set', 'list.columns', 'ID,STATUS', '--scope', 'project'], { env: ctx.project.env, cwd: ctx.project.dir });
    expect(fixed.code, fixed.stderr).toBe(0);
    expect((await runCli(['list'], { env: ctx.project.env, cwd: ctx.project.dir })).code).toBe(0);
  });

  it("a trusted project file's env block reaches every command, under the process environment", async () => {
    fs.mkdirSync(projectDir());
    fs.writeFileSync(path.join(projectDir(), 'settings.json'), JSON.stringify({ env: { SYNAPSE_HISTORY_ENABLED: false } }));
    // A project's env applies once the user trusts it.
    const before = await runCli(['history', 'list'], { env: ctx.project.env, cwd: ctx.project.dir });
    expect(before.stderr).not.toContain('history recording is off');
    expect((await runCli(['trust'], { env: ctx.project.env, cwd: ctx.project.dir })).code).toBe(0);
    const off = await runCli(['history', 'list'], { env: ctx.project.env, cwd: ctx.project.dir });
    expect(off.stderr).toContain('history recording is off (SYNAPSE_HISTORY_ENABLED=false)');
    const on = await runCli(['history', 'list'], { env: { ...ctx.project.env, SYNAPSE_HISTORY_ENABLED: 'true' }, cwd: ctx.project.dir });
    expect(on.stderr).not.toContain('history recording is off');
  });

  it('synapse config without a terminal prints its help and exits 2', async () => {
    const r = await runCli(['config'], { env: ctx.project.env, cwd: ctx.project.dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Usage: synapse config');
  });
});
