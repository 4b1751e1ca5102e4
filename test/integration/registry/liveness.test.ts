import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { readProcStat } from '../../../src/registry/proc-stat.js';
import { BIN, freePort, ROOT, runCli, tempHome, waitFor } from '../../support/synapse.js';

const linux = fs.existsSync('/proc/self/stat');

/** Every process whose parent is `pid` (from /proc). */
function childrenOf(pid: number): number[] {
  return fs
    .readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map(Number)
    .filter((p) => readProcStat(p)?.ppid === pid);
}

/**
 * A parent that never reaps, like a container's PID 1 without an init: perl forks and execs the
 * agent, then blocks on its stdin with SIGCHLD at its default, so a killed agent stays a zombie
 * (kill(pid, 0) still succeeds). Closing its stdin makes it reap the child and exit.
 */
function nonReapingParent(args: string[], env: NodeJS.ProcessEnv): { parent: ChildProcessWithoutNullStreams; agentPid: Promise<number> } {
  const parent = spawn(
    'perl',
    ['-e', '$| = 1; my $p = fork() // die; if (!$p) { exec @ARGV or die "exec: $!" } print "$p\\n"; <STDIN>; waitpid($p, 0);', ...args],
    {
      env,
      cwd: ROOT,
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    },
  );
  const agentPid = new Promise<number>((resolve, reject) => {
    parent.stdout.once('data', (d: Buffer) => resolve(Number(d.toString().split('\n')[0])));
    parent.once('error', reject);
  });
  return { parent, agentPid };
}

describe.skipIf(!linux)('an agent killed with SIGKILL under a parent that does not reap', () => {
  const t = tempHome();
  afterAll(() => t.cleanup());

  it('is gone from `synapse list` and from target resolution on the next scan, while still a zombie', async () => {
    const port = await freePort();
    const { parent, agentPid } = nonReapingParent([process.execPath, BIN, 'echo', '--headless', '--port', String(port), '--name', 'doomed'], t.env);
    const parentClosed = new Promise((r) => parent.once('close', r));
    const pid = await agentPid;
    let cliPids: number[] = [];
    try {
      const entryFile = `${t.env.SYNAPSE_REGISTRY_DIR}/synapse-echo-${port}.json`;
      await waitFor(() => fs.existsSync(entryFile), 15_000, 'the agent registered');
      const before = JSON.parse((await runCli(['list', '--json'], { env: t.env })).stdout);
      expect(before.map((e: any) => [e.agent_id, e.pid])).toEqual([[`synapse-echo-${port}`, pid]]);
      expect(before[0].pid_starttime).toBe(readProcStat(pid)!.startTicks);
      cliPids = childrenOf(pid);

      process.kill(pid, 'SIGKILL');
      const killedAt = performance.now();
      await waitFor(() => readProcStat(pid)?.state === 'Z', 5000, 'the agent to be a zombie');
      // The scenario of the issue: kill(pid, 0) still says the process exists.
      expect(() => process.kill(pid, 0)).not.toThrow();

      const list = await runCli(['list', '--json'], { env: t.env });
      const listedAt = performance.now();
      expect(list.code, list.stderr).toBe(0);
      expect(JSON.parse(list.stdout)).toEqual([]);
      expect(fs.existsSync(entryFile)).toBe(false);
      console.info(`kill -9 -> absent from \`synapse list --json\`: ${Math.round(listedAt - killedAt)} ms (one list run)`);

      expect(readProcStat(pid)?.state).toBe('Z'); // still unreaped: it was the check, not a reaper
      const sent = await runCli(['send', 'doomed', 'are you there?', '--silent'], { env: t.env });
      expect(sent.code).not.toBe(0);
      expect(sent.stderr).toContain('no agent matches "doomed"');
    } finally {
      for (const p of [pid, ...cliPids]) {
        try {
          process.kill(p, 'SIGKILL'); // a no-op for the zombie; the rest of it if the test failed early
        } catch {
          // already gone
        }
      }
      parent.stdin.end(); // perl reaps the zombie and exits
      await parentClosed;
    }
    expect(readProcStat(pid)).toBeNull();
  });
});
