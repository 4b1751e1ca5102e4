import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileSafetyStore } from '../../../src/store/file-safety.js';
import { BIN, ROOT, cleanupAll, getJson, postJson, runCli, startHeadless, tempHome, textMessage, waitFor, type AgentHandle } from '../../support/synapse.js';
import { TmuxServer } from '../../support/tmux-server.js';

/**
 * `synapse list` on a terminal: the live monitor, driven under a real tmux server of the test's
 * own with send-keys and read with capture-pane, against real echo agents. It runs in a shell in
 * its own tmux window, as a person starts it; quitting must give that shell back as it was.
 * The capture of a monitor with a busy agent and a locked file is kept as
 * test/artifacts/monitor.txt.
 */

const t = tempHome();
const ARTIFACT = path.join(ROOT, 'test', 'artifacts', 'monitor.txt');
let tmux: TmuxServer;
let pane: string;
let ann: AgentHandle;
let bob: AgentHandle;
const api = path.join(t.home, 'api');
const web = path.join(t.home, 'web');

/** What the monitor's pane shows now (with `escapes`, its colours too). */
const screen = (escapes = false) => tmux.run(['capture-pane', '-p', ...(escapes ? ['-e'] : []), '-t', pane]);
const keys = (...k: string[]) => tmux.run(['send-keys', '-t', pane, ...k]);
/** The line of the monitor's table that shows this agent (its number, if any, then its id), or undefined. */
const rowOf = (a: { agentId: string }, text = screen()) =>
  text.split('\n').find((l) => new RegExp(`^\\d?\\s+${a.agentId}\\s`).test(l.replace(/\x1b\[[0-9;]*m/g, '')));
/** waitFor, and on a timeout the monitor's screen in the error: what it showed instead. */
async function until<T>(fn: () => T | null | undefined | false, timeoutMs: number, what: string): Promise<T> {
  try {
    return await waitFor(fn, timeoutMs, what);
  } catch (err) {
    throw new Error(`${(err as Error).message}\n--- the monitor's pane:\n${screen()}`, { cause: err });
  }
}
const registered = (a: AgentHandle) => fs.existsSync(path.join(t.env.SYNAPSE_REGISTRY_DIR!, `${a.agentId}.json`));

/**
 * The pane: a shell with only the test's variables (`env -i`: no CI variable from the runner, which
 * would make Ink print only its last frame), as a person's terminal; no history file (the shell would
 * write it into the temp HOME as the test removes it).
 */
function shellCommand(): string[] {
  const keep = ['HOME', 'PATH', 'SYNAPSE_REGISTRY_DIR', 'SYNAPSE_HOME', 'SYNAPSE_REPLY_TARGET_DIR', 'SYNAPSE_MESSAGE_DIR', 'SYNAPSE_HISTORY_ENABLED'];
  return ['env', '-i', ...keep.map((k) => `${k}=${t.env[k] ?? ''}`), 'TERM=xterm-256color', 'PS1=$ ', 'HISTFILE=', 'bash', '--norc', '--noprofile'];
}

beforeAll(async () => {
  for (const dir of [api, web]) fs.mkdirSync(dir, { recursive: true });
  ann = await startHeadless('echo', { env: { ...t.env, ECHO_THINK_MS: '3000' }, cwd: api, args: ['--name', 'ann', '--role', 'writes the API'] });
  bob = await startHeadless('echo', { env: t.env, cwd: web, args: ['--name', 'bob'] });
  const locks = FileSafetyStore.forProject(web, t.env);
  try {
    locks.lock({ path: 'src/login.ts', agent: bob.agentId, pid: null, intent: 'fix the login', ttlMs: 600_000 });
  } finally {
    locks.close();
  }
  // The agent reads its locks every 2 s: wait until it reports the compound status.
  await waitFor(async () => (await getJson(`${bob.endpoint}/status`)).body.status === 'PROCESSING', 10_000, 'bob PROCESSING while it holds a lock');
  tmux = new TmuxServer(t.home);
  pane = tmux.run(['new-window', '-d', '-P', '-F', '#{pane_id}', '-c', api, '--', ...shellCommand()]);
  // A terminal of a usual size (the session is 200x60), so the kept capture is one screenful.
  tmux.run(['resize-window', '-t', pane, '-x', '160', '-y', '16']);
  await waitFor(() => screen().includes('$'), 10_000, 'the shell prompt');
  keys(`${process.execPath} ${BIN} list`, 'Enter');
}, 60_000);

afterAll(async () => {
  const entries = fs.existsSync(t.env.SYNAPSE_REGISTRY_DIR!) ? fs.readdirSync(t.env.SYNAPSE_REGISTRY_DIR!).filter((f) => f.endsWith('.json')) : [];
  for (const f of entries) await runCli(['kill', f.replace(/\.json$/, ''), '-f'], { env: t.env }).catch(() => undefined);
  await cleanupAll();
  tmux?.kill();
  t.cleanup();
});

describe('synapse list on a terminal: the live monitor under tmux', () => {
  it('shows every agent with its columns, the status in its colour and the file it edits', async () => {
    const text = await until(() => (rowOf(ann) && rowOf(bob) ? screen() : null), 15_000, 'both agents in the monitor');
    expect(text).toContain('Synapse agents · 2 agents');
    expect(text).toMatch(/#\s+ID\s+NAME\s+TYPE\s+ROLE\s+STATUS\s+CURRENT\s+TRANSPORT\s+WORKING_DIR\s+SKILL_SET\s+EDITING_FILE/);
    expect(rowOf(ann, text)).toMatch(/ann\s+echo\s+writes the API\s+READY\s+-\s+HTTP\s+~\/api\s+-\s+-/);
    // bob holds a file lock: the compound status (as the original) reports it PROCESSING, not READY.
    expect(rowOf(bob, text)).toMatch(/bob\s+echo\s+-\s+PROCESSING\s+-\s+HTTP\s+~\/web\s+-\s+src\/login\.ts/);
    expect(text).toContain('1-9 select  ↑/↓ move  Enter/j jump  K kill  / filter  ESC clear  q quit');
    // READY in green (SGR 32).
    expect(rowOf(ann, screen(true))).toMatch(/\x1b\[(?:[0-9;]*;)?32m(?:\x1b\[[0-9;]*m)*READY/);
  }, 30_000);

  it('a status change shows without a key press, well within the 10 s fallback poll: PROCESSING with the task and its elapsed time, then idle again', async () => {
    const sent = await postJson(`${ann.endpoint}/tasks/send`, textMessage('review the login diff \x1b[2J please'));
    expect(sent.status).toBe(202);
    const busy = await until(
      () => (/PROCESSING\s+review the login diff \[2J please \(\d+s\)/.test(rowOf(ann) ?? '') ? screen() : null),
      5_000,
      'ann PROCESSING',
    );
    // The escape sequence in the message never reaches the terminal.
    expect(rowOf(ann, screen(true))).not.toContain('\x1b[2J');
    expect(rowOf(ann, screen(true))).toMatch(/\x1b\[(?:[0-9;]*;)?33m(?:\x1b\[[0-9;]*m)*PROCESSING/);
    fs.mkdirSync(path.dirname(ARTIFACT), { recursive: true });
    fs.writeFileSync(ARTIFACT, `${busy.trimEnd()}\n`);
    await until(() => /(READY|DONE)\s+-\s/.test(rowOf(ann) ?? ''), 15_000, 'ann idle again');
  }, 30_000);

  it('/ filters by directory, type or name as it is typed; Enter keeps the filter, ESC clears it', async () => {
    keys('/');
    await until(() => screen().includes('filter (type, name or directory):'), 5_000, 'the filter prompt');
    keys('web');
    await until(() => screen().includes('filter "web" (1 shown)') && rowOf(bob) && !rowOf(ann), 5_000, 'only bob (in ~/web)');
    keys('Enter');
    await until(() => screen().includes('1-9 select') && screen().includes('filter "web" (1 shown)'), 5_000, 'the filter kept');
    keys('Escape');
    await until(() => rowOf(ann) && rowOf(bob) && !screen().includes('filter "'), 5_000, 'both agents again');
    keys('/', 'ann');
    await until(() => rowOf(ann) && !rowOf(bob), 5_000, 'only ann by name');
    keys('Escape');
    await until(() => rowOf(ann) && rowOf(bob), 5_000, 'both agents again');
  }, 30_000);

  it('a number selects a row; K asks first, n keeps the agent, y kills it and its row goes', async () => {
    const number = /^(\d)\s/.exec(rowOf(bob)!)![1]!;
    keys(number, 'K');
    await until(() => screen().includes(`Kill bob (${bob.agentId})? [y/n]`), 5_000, 'the kill question');
    keys('n');
    await until(() => screen().includes('kill cancelled'), 5_000, 'the kill cancelled');
    expect(registered(bob)).toBe(true);
    keys('K');
    await until(() => screen().includes(`Kill bob (${bob.agentId})? [y/n]`), 5_000, 'the kill question again');
    keys('y');
    await until(() => screen().includes(`stopped ${bob.agentId} (bob)`) && !rowOf(bob), 20_000, 'bob stopped and gone from the monitor');
    expect(registered(bob)).toBe(false);
    await until(() => bob.child.exitCode !== null || bob.child.signalCode !== null, 10_000, 'bob to exit');
    expect(screen()).toContain('Synapse agents · 1 agent');
  }, 60_000);

  it("Enter on a spawned agent's row focuses its tmux pane (synapse jump); one without a pane says why", async () => {
    const res = await runCli(['spawn', 'echo', '--name', 'cat', '--json'], { env: { ...t.env, ...tmux.insideEnv() }, cwd: web, timeoutMs: 60_000 });
    expect(res.code, res.stderr).toBe(0);
    const cat = JSON.parse(res.stdout) as { agent_id: string; pane: { id: string } };
    const catRow = await until(() => rowOf({ agentId: cat.agent_id }), 10_000, 'cat in the monitor');
    expect(tmux.activePane()).not.toBe(cat.pane.id);
    keys(/^(\d)\s/.exec(catRow)![1]!, 'Enter');
    await until(() => tmux.activePane() === cat.pane.id, 10_000, "cat's pane focused");
    await until(() => screen().includes(`jumped to ${cat.agent_id} (tmux pane ${cat.pane.id})`), 5_000, 'the jump said');
    keys(/^(\d)\s/.exec(rowOf(ann)!)![1]!, 'j');
    await until(() => screen().includes(`jump failed: ${ann.agentId} has no pane to jump to`), 10_000, 'why ann has no pane');
  }, 90_000);

  it('q quits and gives the shell back as it was: the command line on screen, keys echoed, commands run', async () => {
    keys('q');
    await until(() => !screen().includes('Synapse agents'), 5_000, 'the monitor gone');
    const after = await until(() => (screen().includes(`${BIN} list`) ? screen() : null), 5_000, 'the shell screen back');
    expect(after).not.toContain('1-9 select');
    keys('echo restored-$((6*7))', 'Enter');
    await until(() => screen().includes('restored-42'), 5_000, 'a command run in the shell');
    expect(screen()).toContain('echo restored-$((6*7))'); // typed text is echoed again (not raw mode)
  }, 30_000);

  it('on the same terminal, --plain and --json print once and return to the shell', async () => {
    keys('clear', 'Enter');
    keys(`${process.execPath} ${BIN} list --plain; echo plain-exit=$?`, 'Enter');
    const plain = await until(() => (screen().includes('plain-exit=0') ? screen() : null), 15_000, 'the table printed once');
    expect(plain).toMatch(/^ID\s+NAME\s+TYPE\s+ROLE\s+STATUS\s+CURRENT\s+PORT\s+EDITING_FILE\s+WORKING_DIR$/m);
    expect(rowOf(ann, plain)).toBeUndefined(); // no monitor row (the table has no number column)
    expect(plain).toContain(`${ann.agentId}  ann`);
    expect(plain).not.toContain('1-9 select');
    keys('clear', 'Enter');
    keys(`${process.execPath} ${BIN} list --json | grep -c editing_file; echo json-exit=$?`, 'Enter');
    await until(() => /^\d+\s*$/m.test(screen()) && screen().includes('json-exit=0'), 15_000, 'the JSON printed once');
  }, 40_000);
});
