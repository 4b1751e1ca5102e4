import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  addSkillCommand,
  createSkillCommand,
  deleteSkillCommand,
  deploySkillCommand,
  importSkillCommand,
  listSkillsCommand,
  moveSkillCommand,
  showSkillCommand,
} from '../../../src/cli/commands/skills/skills.js';
import { listSetsCommand, showSetCommand } from '../../../src/cli/commands/skills/sets.js';
import type { CommandIo } from '../../../src/cli/io.js';
import { runCommand, runJson, type IoOptions } from '../../support/cli-io.js';
import { tempProject, type Project } from '../../support/project.js';

/**
 * `synapse skills …` in-process with real temp dirs for every scope: the central store
 * (SYNAPSE_SKILLS_DIR), the user's ~/.claude/skills and ~/.agents/skills, the project's, and a
 * read-only plugin. `apply` against a running echo agent is in apply.test.ts.
 */

let p: Project;
let store: string;
beforeEach(() => {
  p = tempProject();
  store = path.join(p.home, 'central-skills');
  p.env.SYNAPSE_SKILLS_DIR = store;
});
afterEach(() => p.cleanup());

const io = (extra: Partial<IoOptions> = {}): IoOptions => ({ env: p.env, cwd: p.dir, ...extra });
const run = (command: (io: CommandIo) => Promise<void>, extra?: Partial<IoOptions>) => runCommand(command, io(extra));
const json = <T = any>(command: (io: CommandIo) => Promise<void>, extra?: Partial<IoOptions>) => runJson<T>(command, io(extra));

function writeSkill(root: string, name: string, description = `Does ${name} things. Use when testing.`, frontName = name): string {
  const dir = path.join(root, name);
  fs.mkdirSync(path.join(dir, 'references'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'SKILL.md'), `---\nname: ${frontName}\ndescription: ${description}\n---\n\n# ${name}\n`);
  fs.writeFileSync(path.join(dir, 'references', 'more.md'), `more about ${name}\n`);
  return dir;
}

const mine = <T extends { scope: string }>(list: T[]): T[] => list.filter((s) => s.scope !== 'builtin');

describe('skills across scopes', () => {
  it('lists each scope from real folders, filters by scope, and flags an invalid SKILL.md', async () => {
    writeSkill(store, 'central-one');
    writeSkill(path.join(p.home, '.claude', 'skills'), 'user-claude');
    writeSkill(path.join(p.home, '.agents', 'skills'), 'user-agents');
    writeSkill(path.join(p.dir, '.claude', 'skills'), 'proj-claude');
    writeSkill(path.join(p.dir, 'plugins', 'acme', 'skills'), 'plug-one');
    writeSkill(path.join(p.dir, '.agents', 'skills'), 'broken', 'x', 'another-name');

    const all = await json<Array<{ name: string; scope: string; read_by: string; valid: boolean }>>((c) => listSkillsCommand({ json: true }, c));
    expect(mine(all).map((s) => [s.name, s.scope, s.read_by, s.valid])).toEqual([
      ['central-one', 'synapse', '-', true],
      ['user-claude', 'user', 'claude', true],
      ['user-agents', 'user', 'codex,gemini,opencode,copilot', true],
      ['proj-claude', 'project', 'claude', true],
      ['broken', 'project', 'codex,gemini,opencode,copilot', false],
      ['plug-one', 'plugin', 'claude', true],
    ]);
    expect(all.filter((s) => s.scope === 'builtin').map((s) => s.name)).toContain('synapse-a2a');

    const user = await json<Array<{ name: string }>>((c) => listSkillsCommand({ scope: 'user', json: true }, c));
    expect(user.map((s) => s.name)).toEqual(['user-claude', 'user-agents']);
    const table = (await run((c) => listSkillsCommand({ scope: 'project' }, c))).stdout;
    expect(table).toMatch(/^NAME\s+SCOPE\s+READ BY\s+DESCRIPTION\s+PATH\n/);
    expect(table).toContain('INVALID');
    expect((await run((c) => listSkillsCommand({ scope: 'galaxy' }, c))).stderr).toContain('unknown scope "galaxy"');
  });

  it('show prints every copy, the files and SKILL.md; an unknown or unsafe name is an error', async () => {
    writeSkill(store, 'twice');
    writeSkill(path.join(p.dir, '.claude', 'skills'), 'twice');
    const shown = await json((c) => showSkillCommand('twice', { json: true }, c));
    expect(shown).toMatchObject({ name: 'twice', scope: 'synapse', files: ['SKILL.md', path.join('references', 'more.md')] });
    expect(shown.copies.map((c: { scope: string }) => c.scope)).toEqual(['synapse', 'project']);
    expect(shown.skill_md).toContain('# twice');
    const missing = await run((c) => showSkillCommand('nope', {}, c));
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no skill "nope" in any scope');
    expect((await run((c) => showSkillCommand('../etc', {}, c))).stderr).toContain('is not a skill name');
  });

  it('deploy copies a skill where each CLI reads it, in user or project scope, and is idempotent', async () => {
    writeSkill(store, 'deploy-me');
    const first = await json<Array<{ to: string; changed: boolean }>>((c) =>
      deploySkillCommand('deploy-me', { agent: 'claude,codex,gemini', scope: 'project', json: true }, c),
    );
    expect(first).toEqual([
      expect.objectContaining({ to: path.join(p.dir, '.claude', 'skills', 'deploy-me'), changed: true }),
      expect.objectContaining({ to: path.join(p.dir, '.agents', 'skills', 'deploy-me'), changed: true }),
    ]);
    expect(fs.readFileSync(path.join(p.dir, '.agents', 'skills', 'deploy-me', 'references', 'more.md'), 'utf8')).toBe('more about deploy-me\n');
    const again = await json<Array<{ changed: boolean }>>((c) => deploySkillCommand('deploy-me', { agent: 'claude', scope: 'project', json: true }, c));
    expect(again).toEqual([expect.objectContaining({ changed: false })]);
    await json((c) => deploySkillCommand('code-review', { agent: 'codex', scope: 'user', json: true }, c));
    expect(fs.existsSync(path.join(p.home, '.agents', 'skills', 'code-review', 'SKILL.md'))).toBe(true);
    const bad = await run((c) => deploySkillCommand('deploy-me', { agent: 'claude', scope: 'galaxy' }, c));
    expect(bad.stderr).toContain('--scope for deploy is user or project');
  });

  it('delete asks on a terminal, wants --force without one, and refuses read-only scopes', async () => {
    const dir = writeSkill(path.join(p.dir, '.claude', 'skills'), 'doomed');
    const noTty = await run((c) => deleteSkillCommand('doomed', {}, c));
    expect(noTty.code).toBe(1);
    expect(noTty.stderr).toContain('pass --force');
    expect((await run((c) => deleteSkillCommand('doomed', {}, c), { terminal: true, answers: [false] })).stdout).toBe('nothing deleted\n');
    expect(fs.existsSync(dir)).toBe(true);
    expect((await run((c) => deleteSkillCommand('doomed', {}, c), { terminal: true, answers: [true] })).stdout).toBe(`deleted ${dir}\n`);
    expect(fs.existsSync(dir)).toBe(false);
    writeSkill(path.join(p.dir, 'plugins', 'acme', 'skills'), 'plugged');
    const ro = await run((c) => deleteSkillCommand('plugged', { force: true }, c));
    expect(ro.stderr).toContain('only in read-only scopes');
  });

  it('move goes to another scope; import copies into the central store', async () => {
    const from = writeSkill(path.join(p.dir, '.claude', 'skills'), 'mover');
    const moved = await json((c) => moveSkillCommand('mover', { to: 'user', agent: 'codex', json: true }, c));
    expect(moved).toEqual({ from, to: path.join(p.home, '.agents', 'skills', 'mover') });
    expect(fs.existsSync(from)).toBe(false);
    const imported = await json((c) => importSkillCommand('mover', { json: true }, c));
    expect(imported).toEqual({ from: path.join(p.home, '.agents', 'skills', 'mover'), to: path.join(store, 'mover'), changed: true });
    writeSkill(path.join(p.dir, '.claude', 'skills'), 'mover');
    const ambiguous = await run((c) => moveSkillCommand('mover', { to: 'project' }, c));
    expect(ambiguous.stderr).toContain('say which with --from <scope>');
    const builtin = await json((c) => importSkillCommand('task-planner', { from: 'builtin', json: true }, c));
    expect(builtin.to).toBe(path.join(store, 'task-planner'));
  });
});

describe('skills add and create', () => {
  it('adds every skill of a folder after checking each front matter; one bad skill adds none', async () => {
    const src = path.join(p.home, 'incoming');
    writeSkill(src, 'good-one');
    writeSkill(src, 'good-two');
    const added = await json<Array<{ name: string; to: string }>>((c) => addSkillCommand(src, { json: true }, c));
    expect(added.map((a) => a.to)).toEqual([path.join(store, 'good-one'), path.join(store, 'good-two')]);

    const bad = path.join(p.home, 'bad');
    writeSkill(bad, 'fine');
    fs.mkdirSync(path.join(bad, 'no-desc'));
    fs.writeFileSync(path.join(bad, 'no-desc', 'SKILL.md'), '---\nname: no-desc\n---\nbody\n');
    const r = await run((c) => addSkillCommand(bad, { scope: 'project' }, c));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${path.join(bad, 'no-desc', 'SKILL.md')}: front matter field "description"`);
    expect(fs.existsSync(path.join(p.dir, '.claude', 'skills', 'fine'))).toBe(false);

    fs.mkdirSync(path.join(p.home, 'nofm', 'plain'), { recursive: true });
    fs.writeFileSync(path.join(p.home, 'nofm', 'plain', 'SKILL.md'), '# no front matter\n');
    expect((await run((c) => addSkillCommand(path.join(p.home, 'nofm', 'plain'), {}, c))).stderr).toContain('has no front matter');
  });

  it('adds skills from a git URL (a real repository, cloned without its .git)', async () => {
    const repo = path.join(p.home, 'skills-repo');
    writeSkill(path.join(repo, 'skills'), 'from-git');
    const git = (...args: string[]) =>
      spawnSync('git', args, {
        cwd: repo,
        encoding: 'utf8',
        env: { ...p.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' },
      });
    expect(git('init', '-q').status).toBe(0);
    expect(git('add', '.').status).toBe(0);
    expect(git('commit', '-qm', 'skills').status).toBe(0);
    const added = await json<Array<{ to: string }>>((c) => addSkillCommand(`file://${repo}`, { json: true }, c));
    expect(added.map((a) => a.to)).toEqual([path.join(store, 'from-git')]);
    expect(fs.readFileSync(path.join(store, 'from-git', 'references', 'more.md'), 'utf8')).toBe('more about from-git\n');
    const missing = await run((c) => addSkillCommand(`file://${p.home}/no-such-repo`, {}, c));
    expect(missing.stderr).toContain('cannot clone');
  });

  it('hostile input: a git ext:: URL runs nothing, and escape sequences in a SKILL.md never reach the terminal', async () => {
    const marker = path.join(p.home, 'pwned');
    const r = await run((c) => addSkillCommand(`ext::sh -c touch% ${marker}.git`, {}, c));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('cannot clone');
    expect(fs.existsSync(`${marker}.git`) || fs.existsSync(marker)).toBe(false);

    const dir = path.join(store, 'sneaky');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(
      path.join(dir, 'SKILL.md'),
      '---\nname: sneaky\ndescription: "looks fine \\e]0;owned\\a"\n---\n\nbody \u001b[2J\u001b]52;c;Y2xpcA==\u0007 end\n',
    );
    const shown = (await run((c) => showSkillCommand('sneaky', {}, c))).stdout;
    expect(shown).toContain('body [2J]52;c;Y2xpcA== end');
    expect(shown).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    const listed = (await run((c) => listSkillsCommand({ scope: 'synapse' }, c))).stdout;
    expect(listed).toContain('sneaky');
    expect(listed).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
  });

  it('create writes a template that passes its own check, never over an existing skill', async () => {
    const made = await json((c) => createSkillCommand('release-notes', { scope: 'project', json: true }, c));
    expect(made.path).toBe(path.join(p.dir, '.claude', 'skills', 'release-notes'));
    const listed = await json<Array<{ name: string; valid: boolean }>>((c) => listSkillsCommand({ scope: 'project', json: true }, c));
    expect(listed).toEqual([expect.objectContaining({ name: 'release-notes', valid: true })]);
    expect((await run((c) => createSkillCommand('release-notes', { scope: 'project' }, c))).stderr).toContain('exists already');
    expect((await run((c) => createSkillCommand(undefined, {}, c))).stderr).toContain('give the skill a name');
    expect((await run((c) => createSkillCommand('Bad Name', {}, c))).stderr).toContain('is not a skill name');
  });
});

describe('skill sets', () => {
  it('lists the six default sets; a project set overrides by name and set show flags its missing skills', async () => {
    const sets = await json<Array<{ name: string }>>((c) => listSetsCommand({ json: true }, c));
    expect(sets.map((s) => s.name)).toEqual(['architect', 'developer', 'reviewer', 'frontend', 'manager', 'documentation']);
    fs.mkdirSync(path.join(p.dir, '.synapse'), { recursive: true });
    fs.writeFileSync(
      path.join(p.dir, '.synapse', 'skill_sets.json'),
      JSON.stringify({ reviewer: { description: 'ours', skills: ['code-review', 'not-shipped'] } }),
    );
    const shown = await json((c) => showSetCommand('reviewer', { json: true }, c));
    expect(shown).toMatchObject({ description: 'ours', missing: ['not-shipped'], source: path.join(p.dir, '.synapse', 'skill_sets.json') });
    expect(shown.members).toEqual([
      expect.objectContaining({ name: 'code-review', scope: 'builtin', missing: false }),
      expect.objectContaining({ name: 'not-shipped', missing: true }),
    ]);
    const text = (await run((c) => showSetCommand('reviewer', {}, c))).stdout;
    expect(text).toMatch(/not-shipped\s+MISSING/);
    expect(text).toContain('1 missing: not-shipped');
    expect((await run((c) => showSetCommand('galactic', {}, c))).stderr).toContain('no skill set "galactic"; the sets are: architect');
  });

  it('a bad skill_sets.json is an error naming the file, the key and the expected shape', async () => {
    fs.mkdirSync(path.join(p.dir, '.synapse'), { recursive: true });
    const file = path.join(p.dir, '.synapse', 'skill_sets.json');
    fs.writeFileSync(file, JSON.stringify({ reviewer: { skills: 'code-review' } }));
    const r = await run((c) => listSetsCommand({}, c));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`skill sets file ${file}: key "reviewer.skills" must be array`);
  });
});
