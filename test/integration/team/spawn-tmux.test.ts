import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childOf, environ } from '../../support/proc.js';
import { BIN, getJson, ROOT, runCli, tempHome, waitFor } from '../../support/synapse.js';
import { TmuxServer } from '../../support/tmux-server.js';

/**
 * Panes under real tmux, on a tmux server of the test's own: `synapse spawn` opens a pane and
 * returns once the agent is READY, `jump` focuses it, `kill` closes it; `team start` opens three
 * echo agents, or hands the current pane to the first; a person quitting a named agent is offered
 * to save it.
 */

const t = tempHome();
const CERT_FILE = path.join(ROOT, 'test', 'fixtures', 'tls', 'cert.pem');
const project = path.join(t.home, 'project');
let tmux: TmuxServer;
let inside: NodeJS.ProcessEnv;

const entries = () =>
  fs.existsSync(t.env.SYNAPSE_REGISTRY_DIR!)
    ? fs
        .readdirSync(t.env.SYNAPSE_REGISTRY_DIR!)
        .filter((f) => f.endsWith('.json'))
        .map((f) => JSON.parse(fs.readFileSync(path.join(t.env.SYNAPSE_REGISTRY_DIR!, f), 'utf8')))
    : [];
const entryNamed = (name: string) => entries().find((e) => e.name === name);

/** `env A=… B=… node bin/synapse.js …`: a command for a pane, with the test's HOME and registry. */
function paneCommand(args: string[]): string[] {
  const vars = [
    'HOME',
    'SYNAPSE_REGISTRY_DIR',
    'SYNAPSE_HOME',
    'SYNAPSE_REPLY_TARGET_DIR',
    'SYNAPSE_MESSAGE_DIR',
    'SYNAPSE_HISTORY_ENABLED',
    'ECHO_THINK_MS',
    'PATH',
  ];
  return ['env', ...vars.map((k) => `${k}=${t.env[k] ?? ''}`), process.execPath, BIN, ...args];
}

beforeAll(() => {
  fs.mkdirSync(project, { recursive: true });
  tmux = new TmuxServer(t.home);
  inside = { ...t.env, ...tmux.insideEnv() };
});

afterAll(async () => {
  for (const e of entries()) await runCli(['kill', e.agent_id, '-f'], { env: t.env, cwd: project }).catch(() => undefined);
  tmux.kill();
  t.cleanup();
});

describe('synapse spawn into tmux', () => {
  it('opens a pane beside the caller, returns once READY, records the pane and the spawning parent; jump focuses it; kill closes it', async () => {
    const res = await runCli(['spawn', 'echo', '--name', 'bob', '--json'], {
      env: { ...inside, NODE_EXTRA_CA_CERTS: CERT_FILE },
      cwd: project,
      timeoutMs: 60_000,
    });
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    const spawned = JSON.parse(res.stdout);
    expect(spawned).toMatchObject({ name: 'bob', terminal: 'tmux', pane: { kind: 'tmux', socket: tmux.socket } });
    expect(tmux.panes()).toContain(spawned.pane.id);
    const entry = entryNamed('bob');
    expect(entry.status).not.toBe('STARTING');
    expect(entry.pane).toEqual(spawned.pane);
    expect(typeof entry.spawned_by_pid).toBe('number');
    expect(entry.working_dir).toBe(project);
    // The pane's node starts with NODE_EXTRA_CA_CERTS held aside (src/extra-ca-certs.ts); its CLI gets it as set.
    const caVars = (env: Record<string, string>) => [env.NODE_EXTRA_CA_CERTS, env.SYNAPSE_EXTRA_CA];
    expect(caVars(environ(entry.pid))).toEqual(['', CERT_FILE]);
    expect(caVars(environ(childOf(entry.pid)))).toEqual([CERT_FILE, undefined]);
    // The echo CLI is on screen in that pane.
    await waitFor(() => tmux.capture(spawned.pane.id).includes('echo>'), 10_000, 'the echo prompt in the pane');

    expect(tmux.activePane()).toBe(tmux.firstPane);
    const jump = await runCli(['jump', 'bob'], { env: inside, cwd: project });
    expect(jump.code).toBe(0);
    expect(tmux.activePane()).toBe(spawned.pane.id);

    const kill = await runCli(['kill', 'bob', '-t', '5'], { env: t.env, cwd: project, timeoutMs: 30_000 });
    expect(kill.code).toBe(0);
    await waitFor(() => !tmux.panes().includes(spawned.pane.id), 10_000, 'the pane to close');
    expect(entryNamed('bob')).toBeUndefined();
  }, 90_000);

  it('a CLI that exits during start-up: spawn fails with its exit and last screen lines, and the pane is gone', async () => {
    const before = tmux.panes();
    const res = await runCli(['spawn', 'echo', '--name', 'quitter'], { env: { ...inside, ECHO_EXIT_AT_START: '3' }, cwd: project, timeoutMs: 60_000 });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('Cannot start: asked to exit at start-up with code 3');
    await waitFor(() => tmux.panes().length === before.length, 10_000, 'the pane to close');
  }, 90_000);

  it('team start --all-new: three echo agents in three panes; one bad member is reported and the others keep running', async () => {
    const res = await runCli(['team', 'start', 'echo:ann', 'echo:ben::', 'nosuchcli:zed', 'echo:cat', '--all-new', '--json'], {
      env: inside,
      cwd: project,
      timeoutMs: 120_000,
    });
    expect(res.code).toBe(1);
    const out = JSON.parse(res.stdout);
    expect(out.started.map((s: { name: string }) => s.name)).toEqual(['ann', 'ben', 'cat']);
    expect(out.failed).toEqual([expect.objectContaining({ spec: 'nosuchcli:zed', code: 'unknown_profile' })]);
    for (const s of out.started) expect(tmux.panes()).toContain(s.pane.id);
    for (const name of ['ann', 'ben', 'cat']) expect(entryNamed(name)?.pane?.kind).toBe('tmux');
    for (const name of ['ann', 'ben', 'cat']) expect((await runCli(['kill', name, '-t', '5'], { env: t.env, cwd: project, timeoutMs: 30_000 })).code).toBe(0);
    await waitFor(() => out.started.every((s: { pane: { id: string } }) => !tmux.panes().includes(s.pane.id)), 10_000, 'the panes to close');
  }, 150_000);

  it('team start hands the current pane to the first member and opens the rest beside it', async () => {
    const pane = tmux.run(['new-window', '-d', '-P', '-F', '#{pane_id}', '-c', project, '--', ...paneCommand(['team', 'start', 'echo:lead', 'echo:mate'])]);
    const lead = await waitFor(() => entryNamed('lead')?.status === 'READY' && entryNamed('lead'), 30_000, 'lead READY');
    const mate = await waitFor(() => entryNamed('mate')?.status === 'READY' && entryNamed('mate'), 30_000, 'mate READY');
    // The lead runs in the pane that ran `team start` (it is not a spawned pane: kill leaves the pane to its shell).
    expect(lead.pane).toBeUndefined();
    await waitFor(() => tmux.capture(pane).includes('echo>'), 10_000, 'the lead on screen in the original pane');
    expect(mate.pane.kind).toBe('tmux');
    expect(mate.pane.id).not.toBe(pane);
    for (const name of ['mate', 'lead']) expect((await runCli(['kill', name, '-t', '5'], { env: t.env, cwd: project, timeoutMs: 30_000 })).code).toBe(0);
  }, 90_000);

  it('a person who quits a named interactive agent is asked to save it, and the answer saves it', async () => {
    const pane = tmux.run([
      'new-window',
      '-d',
      '-P',
      '-F',
      '#{pane_id}',
      '-c',
      project,
      '--',
      ...paneCommand(['echo', '--name', 'keeper', '--role', 'keeps things']),
    ]);
    await waitFor(() => entryNamed('keeper')?.status === 'READY', 30_000, 'keeper READY');
    // Idle after its start-up instruction (Ctrl-D quits the echo CLI only at an empty, idle prompt).
    const idle = () => {
      const screen = tmux.capture(pane).trimEnd();
      return screen.includes('ECHO: A2A: [SYNAPSE]') && screen.endsWith('echo>');
    };
    await waitFor(idle, 15_000, 'the echo prompt after the start-up instruction');
    const endpoint = entryNamed('keeper').endpoint;
    await waitFor(async () => (await getJson(`${endpoint}/status`)).body.ready_for_messages === true, 10_000, 'the start-up instruction done');
    await waitFor(idle, 5_000, 'the idle echo prompt');
    tmux.run(['send-keys', '-t', pane, 'C-d']);
    await waitFor(() => tmux.capture(pane).includes('Save this agent definition for reuse? [y/N]:'), 15_000, 'the save prompt').catch((err: Error) => {
      throw new Error(`${err.message}; the pane shows:\n${tmux.capture(pane)}`);
    });
    tmux.run(['send-keys', '-t', pane, 'y', 'Enter']);
    await waitFor(() => tmux.capture(pane).includes('Saved agent ID ['), 5_000, 'the id question');
    tmux.run(['send-keys', '-t', pane, 'Enter']);
    await waitFor(() => tmux.capture(pane).includes('Scope [project/user]'), 5_000, 'the scope question');
    tmux.run(['send-keys', '-t', pane, 'Enter']);
    const file = await waitFor(
      () => {
        const dir = path.join(project, '.synapse', 'agents');
        const names = fs.existsSync(dir) ? fs.readdirSync(dir) : [];
        return names.length ? path.join(dir, names[0]!) : null;
      },
      10_000,
      'the saved definition',
    );
    expect(fs.readFileSync(file, 'utf8')).toMatch(/name=keeper\nprofile=echo\nrole=keeps things\n/);
    const shown = await runCli(['agents', 'show', 'keeper', '--json'], { env: t.env, cwd: project });
    expect(JSON.parse(shown.stdout)).toMatchObject({ name: 'keeper', profile: 'echo', scope: 'project' });
  }, 90_000);
});
