import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, postgresUnavailable } from '../../support/pg-db.js';
import { simulatedHost, type SimulatedHost as Host } from '../../support/simulated-host.js';
import { BIN, cleanupAll, freePort, runCli, startHeadless, waitFor, type AgentHandle } from '../../support/synapse.js';
import { TmuxServer } from '../../support/tmux-server.js';

/**
 * The live monitor (`synapse list` on a terminal) with a PostgreSQL store, two hosts simulated on
 * loopback as in two-hosts.test.ts: host A's monitor, under a real tmux server of the test's own,
 * shows host B's agent with the HOST column (the registry table has no watch: it is polled every
 * heartbeat), drops it once it is killed without a clean stop and its heartbeat expires, and a
 * monitor whose store cannot be reached still shows this host's agents, with a warning.
 * EDITING_FILE (monitor, --plain, --json) comes from the store's lock rows, for both hosts' agents.
 */

const unavailable = postgresUnavailable();
const KEY = 'monitor-hosts-test-key';

const host = (name: string, storeUrl: string): Host => simulatedHost(name, storeUrl, { key: KEY });

/** The pane's shell: only these variables (`env -i`: no CI variable, which would make Ink print only its last frame). */
function shellCommand(env: NodeJS.ProcessEnv): string[] {
  const keep = Object.keys(env).filter((k) => k === 'HOME' || k === 'PATH' || k.startsWith('SYNAPSE_'));
  return ['env', '-i', ...keep.map((k) => `${k}=${env[k] ?? ''}`), 'TERM=xterm-256color', 'PS1=$ ', 'HISTFILE=', 'bash', '--norc', '--noprofile'];
}

describe.skipIf(unavailable !== '')(`the live monitor across hosts${unavailable ? ` (SKIPPED: ${unavailable})` : ''}`, () => {
  let db: { url: string; drop: () => Promise<void> };
  let a: Host;
  let b: Host;
  let alice: AgentHandle;
  let bob: AgentHandle;
  let tmux: TmuxServer;

  const screen = (pane: string) => tmux.run(['capture-pane', '-p', '-t', pane]);
  const rowOf = (pane: string, agentId: string, text = screen(pane)) =>
    text.split('\n').find((l) => new RegExp(`^\\d?\\s+${agentId.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s`).test(l));
  async function until<T>(pane: string, fn: () => T | null | undefined | false, timeoutMs: number, what: string): Promise<T> {
    try {
      return await waitFor(fn, timeoutMs, what);
    } catch (err) {
      throw new Error(`${(err as Error).message}\n--- the monitor's pane:\n${screen(pane)}`, { cause: err });
    }
  }
  /** A monitor in a new tmux window, started in `cwd` with `env`. */
  async function monitor(env: NodeJS.ProcessEnv, cwd: string): Promise<string> {
    const pane = tmux.run(['new-window', '-d', '-P', '-F', '#{pane_id}', '-c', cwd, '--', ...shellCommand(env)]);
    tmux.run(['resize-window', '-t', pane, '-x', '200', '-y', '20']);
    await waitFor(() => screen(pane).includes('$'), 10_000, 'the shell prompt');
    tmux.run(['send-keys', '-t', pane, `${process.execPath} ${BIN} list`, 'Enter']);
    return pane;
  }

  beforeAll(async () => {
    db = await freshDatabase('synapse_monitor');
    a = host('host-a', db.url);
    b = host('host-b', db.url);
    const statusHeaders = () => ({ 'x-api-key': KEY });
    [alice, bob] = await Promise.all([
      startHeadless('echo', { env: a.env, cwd: a.project, args: ['--name', 'alice'], statusHeaders }),
      startHeadless('echo', { env: b.env, cwd: b.project, args: ['--name', 'bob'], statusHeaders }),
    ]);
    // Each host's agent holds a lock in the store, taken on its own host (the row records host-a / host-b).
    for (const [h, agent, file] of [
      [a, alice, 'src/api.ts'],
      [b, bob, 'lib/ui.ts'],
    ] as const) {
      const r = await runCli(['file-safety', 'lock', file, agent.agentId, '--pid', '0', '--intent', 'edit'], { env: h.env, cwd: h.project });
      expect(r.code, r.stderr).toBe(0);
    }
    tmux = new TmuxServer(a.env.HOME!);
  }, 60_000);

  afterAll(async () => {
    await cleanupAll();
    tmux?.kill();
    await db?.drop();
    a?.cleanup();
    b?.cleanup();
  });

  it("synapse list --json and --plain on host A show each host's agent with the file it locked in the store", async () => {
    type Listed = { agent_id: string; host: string; editing_file: string | null };
    const rows = await waitFor(
      async () => {
        const r = await runCli(['list', '--json'], { env: a.env, cwd: a.project });
        expect(r.code, r.stderr).toBe(0);
        const listed = JSON.parse(r.stdout) as Listed[];
        return listed.some((x) => x.agent_id === bob.agentId) ? listed : null;
      },
      15_000,
      'host A to see bob',
    );
    expect(rows.find((x) => x.agent_id === alice.agentId)).toMatchObject({ host: 'host-a', editing_file: 'src/api.ts' });
    expect(rows.find((x) => x.agent_id === bob.agentId)).toMatchObject({ host: 'host-b', editing_file: 'lib/ui.ts' });
    // Nothing was read from (or written to) this machine's file-safety database.
    expect(fs.existsSync(path.join(a.project, '.synapse', 'file_safety.db'))).toBe(false);
    const plain = await runCli(['list', '--plain'], { env: a.env, cwd: a.project });
    expect(plain.stdout).toMatch(new RegExp(`${bob.agentId}\\s+host-b\\s+bob\\s.*lib/ui\\.ts`));
    expect(plain.stdout).toMatch(new RegExp(`${alice.agentId}\\s+host-a\\s+alice\\s.*src/api\\.ts`));
  }, 30_000);

  it("host A's monitor shows host B's agent with its host, and drops it when its heartbeat expires", async () => {
    const pane = await monitor(a.env, a.project);
    const text = await until(pane, () => (rowOf(pane, alice.agentId) && rowOf(pane, bob.agentId) ? screen(pane) : null), 20_000, 'both hosts in the monitor');
    expect(text).toContain('Synapse agents · 2 agents');
    expect(text).toMatch(/#\s+ID\s+HOST\s+NAME\s+TYPE/);
    expect(rowOf(pane, alice.agentId, text)).toMatch(/host-a\s+alice\s+echo/);
    expect(rowOf(pane, bob.agentId, text)).toMatch(/host-b\s+bob\s+echo/);
    // EDITING_FILE from the store's locks, for this host's agent and the other host's.
    await until(
      pane,
      () => /src\/api\.ts/.test(rowOf(pane, alice.agentId) ?? '') && /lib\/ui\.ts/.test(rowOf(pane, bob.agentId) ?? ''),
      10_000,
      'the locked files',
    );
    expect(text).not.toContain('WARNING');

    // K on another host's row does not look for it here: it says where it runs.
    const number = /^(\d)\s/.exec(rowOf(pane, bob.agentId, text)!)![1]!;
    tmux.run(['send-keys', '-t', pane, number, 'K']);
    await until(pane, () => screen(pane).includes(`Kill bob (${bob.agentId})? [y/n]`), 5_000, 'the kill question');
    tmux.run(['send-keys', '-t', pane, 'y']);
    await until(pane, () => screen(pane).includes(`${bob.agentId} runs on host host-b: stop it there`), 5_000, 'the answer for a remote row');
    expect(bob.child.exitCode).toBeNull();

    // SIGKILL: no clean delete of bob's row; it expires after 3 heartbeats and the next poll drops it.
    bob.child.kill('SIGKILL');
    await until(pane, () => !rowOf(pane, bob.agentId) && screen(pane).includes('Synapse agents · 1 agent'), 20_000, 'bob gone from the monitor');
    expect(rowOf(pane, alice.agentId)).toMatch(/host-a\s+alice/);
    tmux.run(['send-keys', '-t', pane, 'q']);
    await until(pane, () => screen(pane).trimEnd().endsWith('$'), 10_000, 'the shell back after q');
  }, 60_000);

  it("a monitor whose store cannot be reached shows this host's agents and warns that other hosts are missing", async () => {
    const closed = await freePort(); // nothing listens there
    const env = { ...a.env, SYNAPSE_STORE_URL: `postgres://synapse:secret-pw@127.0.0.1:${closed}/team` };
    const pane = await monitor(env, a.project);
    const text = await until(
      pane,
      () => (rowOf(pane, alice.agentId) && screen(pane).includes('WARNING: other hosts not shown') ? screen(pane) : null),
      20_000,
      'alice and the warning',
    );
    expect(text).toMatch(/#\s+ID\s+HOST\s+NAME/);
    expect(rowOf(pane, alice.agentId, text)).toMatch(/host-a\s+alice/);
    await until(pane, () => rowOf(pane, alice.agentId)?.includes('(file-safety db unreadable)'), 10_000, 'EDITING_FILE unknown, not empty');
    expect(text).not.toContain('secret-pw');
    tmux.run(['send-keys', '-t', pane, 'q']);
    await until(pane, () => screen(pane).trimEnd().endsWith('$'), 10_000, 'the shell back after q');
  }, 60_000);
});
