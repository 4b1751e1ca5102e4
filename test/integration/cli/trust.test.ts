import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import type * as NodePty from 'node-pty';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { gitRepo } from '../../support/git-repo.js';
import { BIN, cleanupAll, getJson, runCli, startHeadless, tempHome, waitFor } from '../../support/synapse.js';

/**
 * Issue 21 §5: project settings need trust. A cloned repository's `.synapse/settings.json` sets a
 * variable (a screen-trace file: written as soon as an agent applies it) and an `on_idle` hook that
 * writes a marker file. Real `synapse` processes, a temp HOME and a real git repository.
 */

const pty = createRequire(import.meta.url)('node-pty') as typeof NodePty;
const UP = '\x1b[A';

const t = tempHome();
const repo = path.join(t.home, 'repo');
const marker = path.join(repo, 'idle-marker');
const trace = path.join(t.home, 'trace.log');
const settingsFile = path.join(repo, '.synapse', 'settings.json');
const writeSettings = (hook: string) =>
  fs.writeFileSync(settingsFile, `${JSON.stringify({ a2a: { flow: 'auto' }, env: { SYNAPSE_SCREEN_TRACE: trace }, hooks: { on_idle: hook } }, null, 2)}\n`);
const cli = (args: string[], env = t.env, cwd = repo) => runCli(args, { env, cwd, timeoutMs: 60_000 });
let git: ReturnType<typeof gitRepo>;

beforeAll(() => {
  git = gitRepo(repo, t.env, { 'README.md': 'a cloned repository\n' });
  fs.mkdirSync(path.dirname(settingsFile), { recursive: true });
  writeSettings('touch idle-marker');
  git(repo, 'add', '.synapse/settings.json');
  git(repo, 'commit', '-qm', 'project settings');
});
afterEach(async () => {
  await cleanupAll();
  for (const f of [marker, trace]) fs.rmSync(f, { force: true });
});
afterAll(() => t.cleanup());

/** Starts an echo agent in the repo (no terminal) and waits until it reports READY: by then its idle hook, if it runs, has run. */
async function startAndSettle(cwd = repo): Promise<{ output: string; applied: { hook: boolean; env: boolean }; status: any }> {
  for (const f of [path.join(cwd, 'idle-marker'), trace]) fs.rmSync(f, { force: true });
  const agent = await startHeadless('echo', { env: t.env, cwd, args: ['--name', 'cloned'] });
  await waitFor(async () => (await getJson(`${agent.endpoint}/status`)).body.status === 'READY', 15_000, 'READY');
  const status = JSON.parse((await cli(['status', 'cloned', '--json'])).stdout);
  const text = (await cli(['status', 'cloned'])).stdout;
  const applied = { hook: fs.existsSync(path.join(cwd, 'idle-marker')), env: fs.existsSync(trace) };
  await agent.stop();
  return { output: agent.output(), applied, status: { ...status, text } };
}

describe('project settings need trust', () => {
  it('untrusted: neither the hook nor the variable applies, and stderr and status say so, naming synapse trust', async () => {
    const run = await startAndSettle();
    expect(run.applied).toEqual({ hook: false, env: false });
    expect(run.output).toContain("NOT APPLIED: this project's settings set environment variables or run commands, and you have not trusted them");
    expect(run.output).toContain('env.SYNAPSE_SCREEN_TRACE = ');
    expect(run.output).toContain('hooks.on_idle = "touch idle-marker"');
    expect(run.output).toContain('`synapse trust`');
    expect(run.status.settings_withheld).toEqual(['env.SYNAPSE_SCREEN_TRACE', 'hooks.on_idle']);
    expect(run.status.text).toMatch(/settings {5}NOT APPLIED \(project settings not trusted\): env\.SYNAPSE_SCREEN_TRACE, hooks\.on_idle; `synapse trust`/);
    // The rest of the project's file applies; `config show` lists what does not.
    const shown = (await cli(['config', 'show'])).stdout;
    expect(shown).toContain("Not applied: the project's env and hooks are not trusted");
    const show = JSON.parse((await cli(['trust', '--show', '--json'])).stdout);
    expect(show).toMatchObject({ action: 'shown', decision: null, applied: false, project: fs.realpathSync(path.join(repo, '.git')) });
  }, 60_000);

  it('`synapse spawn` without a terminal refuses them the same way', async () => {
    const res = await cli(['spawn', 'echo', '--name', 'helper', '--terminal', 'background', '--json']);
    expect(res.code).toBe(0);
    expect(res.stderr).toContain('NOT APPLIED');
    expect(JSON.parse((await cli(['status', 'helper', '--json'])).stdout).settings_withheld).toEqual(['env.SYNAPSE_SCREEN_TRACE', 'hooks.on_idle']);
    expect((await cli(['kill', 'helper', '-f'])).code).toBe(0);
    expect(fs.existsSync(marker)).toBe(false);
  }, 60_000);

  it('after `synapse trust` both apply; a change is refused again; `--revoke` refuses them', async () => {
    // Not from inside an agent: trusting is the person's decision.
    const inside = await cli(['trust'], { ...t.env, SYNAPSE_AGENT_ID: 'synapse-claude-8100' });
    expect(inside.code).toBe(1);
    expect(inside.stderr).toContain('trusting a project');

    const trusted = await cli(['trust', '--json']);
    expect(trusted.code).toBe(0);
    expect(JSON.parse(trusted.stdout)).toMatchObject({ action: 'trusted', decision: 'trusted', applied: true });
    const stored = JSON.parse(fs.readFileSync(path.join(t.env.SYNAPSE_HOME!, 'trusted-projects.json'), 'utf8'));
    expect(Object.keys(stored.projects)).toEqual([fs.realpathSync(path.join(repo, '.git'))]);
    let run = await startAndSettle();
    expect(run.applied).toEqual({ hook: true, env: true });
    expect(run.output).not.toContain('NOT APPLIED');
    expect(run.status.settings_withheld).toBeUndefined();

    // A linked worktree of the same repository is the same project: the decision holds there.
    const worktree = path.join(t.home, 'repo-wt');
    git(repo, 'worktree', 'add', '-q', worktree);
    run = await startAndSettle(worktree);
    expect(run.applied).toEqual({ hook: true, env: true });

    // The hook changes (as a pull could change it): asked about again, not applied.
    writeSettings('touch idle-marker; echo changed');
    run = await startAndSettle();
    expect(run.applied).toEqual({ hook: false, env: false });
    expect(run.output).toContain('hooks.on_idle = "touch idle-marker; echo changed"');
    expect(JSON.parse((await cli(['trust', '--show', '--json'])).stdout)).toMatchObject({ decision: null, applied: false });

    expect((await cli(['trust'])).code).toBe(0);
    const revoked = await cli(['trust', '--revoke', '--json']);
    expect(JSON.parse(revoked.stdout)).toMatchObject({ action: 'revoked', revoked: 2 });
    run = await startAndSettle();
    expect(run.applied).toEqual({ hook: false, env: false });
    expect(run.output).toContain('NOT APPLIED');
  }, 120_000);

  it('an unknown key in a settings file is an error that names the key and the file', async () => {
    const before = fs.readFileSync(settingsFile, 'utf8');
    try {
      fs.writeFileSync(settingsFile, JSON.stringify({ hooks: { on_idel: 'touch idle-marker' } }));
      const res = await cli(['start', 'echo']);
      expect(res.code).toBe(1);
      expect(res.stderr).toContain(`settings file ${fs.realpathSync(settingsFile)}: hooks.on_idel is not a setting`);
    } finally {
      fs.writeFileSync(settingsFile, before);
    }
  });
});

describe('on a terminal, the start asks', () => {
  const plain = (s: string) => s.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');

  /** `synapse start echo` on a real terminal; `answer` is typed once the question shows. */
  async function startOnTerminal(name: string, answer: string): Promise<string> {
    const term = pty.spawn(process.execPath, [BIN, 'start', 'echo', '--name', name], { name: 'xterm-256color', cols: 160, rows: 40, cwd: repo, env: t.env });
    let out = '';
    term.onData((d) => (out += d));
    const exited = new Promise<number>((r) => term.onExit(({ exitCode }) => r(exitCode)));
    try {
      await waitFor(() => plain(out).includes('Apply them?'), 15_000, 'the trust question');
      expect(plain(out)).toContain('hooks.on_idle = "touch idle-marker"');
      term.write(answer);
      expect(await exited).toBe(0);
      return plain(out);
    } finally {
      try {
        term.kill('SIGKILL');
      } catch {
        // already exited
      }
    }
  }

  it('"Never these" starts it without them and is remembered; "Yes" trusts and applies them', async () => {
    writeSettings('touch idle-marker');
    expect((await cli(['trust', '--revoke'])).code).toBe(0);

    const never = await startOnTerminal('asked1', `\x1b[B\r`); // down from "Not now" to "Never these"
    expect(never).toContain('NOT APPLIED');
    expect(never).toContain('you declined them');
    expect(JSON.parse((await cli(['trust', '--show', '--json'])).stdout)).toMatchObject({ decision: 'denied', applied: false });
    expect((await cli(['kill', 'asked1', '-f'])).code).toBe(0);
    expect(fs.existsSync(marker)).toBe(false);

    // Declined: a start without a terminal says so, and nothing asks again until `synapse trust`.
    expect((await cli(['start', 'echo', '--name', 'quiet'])).stderr).toContain('you declined them');
    expect((await cli(['kill', 'quiet', '-f'])).code).toBe(0);

    expect((await cli(['trust', '--revoke'])).code).toBe(0);
    const yes = await startOnTerminal('asked2', `${UP}\r`); // up from "Not now" to "Yes, trust them"
    expect(yes).toContain('[Synapse] Trusted: env.SYNAPSE_SCREEN_TRACE, hooks.on_idle');
    expect(yes).not.toContain('NOT APPLIED');
    await waitFor(() => fs.existsSync(marker) && fs.existsSync(trace), 15_000, 'the hook and the variable to apply');
    expect((await cli(['kill', 'asked2', '-f'])).code).toBe(0);
    expect(JSON.parse((await cli(['trust', '--show', '--json'])).stdout)).toMatchObject({ decision: 'trusted', applied: true });
  }, 120_000);
});
