import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { logsDir, type Env } from '../config/paths.js';
import { SynapseError } from '../errors.js';
import { deferExtraCaCerts } from '../extra-ca-certs.js';
import type { RegistryEntry } from '../registry/entry.js';
import { describeExit, exitRecordOfPid } from '../registry/exit-record.js';
import { isPidAlive } from '../registry/liveness.js';
import { openRegistry } from '../registry/lookup.js';
import { iso } from '../clock.js';

export const synapseBin = fileURLToPath(new URL('../../bin/synapse.js', import.meta.url));

/**
 * The V8 flags of every agent process, the same as bin/synapse.js's shebang (a test holds them
 * equal): a 1 MiB young generation (~20 MiB less idle RSS, bench/delivery), one V8 worker
 * thread instead of four (~0.9 MiB less idle RSS: fewer stacks and malloc arenas; an agent's heap
 * is small enough that GC and compiling in the background gain nothing from more). The one full
 * collection an agent runs once it is idle after work needs no flag (idle-gc.ts). `--optimize-for-size`
 * was measured and left out: 3 MiB less idle, but V8 then kept ~5 MiB more for 30 s after a burst
 * of 1,000 messages (guides/agent-runtime.md). The bin puts `--max-semi-space-size` back to its
 * default as its first act: the heap keeps the size it was made with, and V8 takes Node's built-in
 * code cache again (it refuses it under any V8 flag off its default).
 */
export const AGENT_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=1', '--v8-pool-size=1'];

/** How long the agent may take to register, and then its CLI to draw its first screen. */
const REGISTER_MS = 15_000;
const CLI_UP_MS = 30_000;
/** How often `synapse start` looks at the registry when it cannot watch it, and when it can. */
const POLL_MS = 10;
const WATCHED_POLL_MS = 200;

/** Calls `onChange` on any change in `dir` (made if missing); null where it cannot be watched. */
function watchDir(dir: string, onChange: () => void): fs.FSWatcher | null {
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const watcher = fs.watch(dir, { persistent: false }, onChange);
    watcher.on('error', () => undefined);
    return watcher;
  } catch {
    return null;
  }
}

/** What `synapse start` waited for: the agent registered, and its CLI is up (or still starting after `CLI_UP_MS`). */
export interface Launched {
  entry: RegistryEntry;
  logFile: string;
  /** The CLI had not shown a screen the status rules read (prompt, work or a question) in time. */
  stillStarting: boolean;
}

/** Why the background agent is gone: the CLI's exit code and last screen lines, or the log's tail. */
function goneError(pid: number, logFile: string, env: Env): SynapseError {
  const rec = exitRecordOfPid(pid, env);
  if (rec) {
    const lines = rec.last_lines.length ? `; its last lines on screen:\n${rec.last_lines.map((l) => `  | ${l}`).join('\n')}` : '; its screen was empty';
    return new SynapseError('cli_exited', `${rec.agent_type} exited (${describeExit(rec)})${lines}\n(full log: ${logFile})`, {
      exit_code: rec.exit_code,
      last_lines: rec.last_lines,
      log_file: logFile,
    });
  }
  const tail = fs.readFileSync(logFile, 'utf8').trim().split('\n').slice(-5).join('\n');
  return new SynapseError('internal', `the agent exited during start-up:\n${tail}\n(full log: ${logFile})`);
}

/**
/**
 * `synapse start`: runs `synapse <synapseArgs>` (the agent's options, cli/detached.ts: the same
 * code path as `synapse <profile> --headless`), detached in its own process group with
 * stdout/stderr in a log file. Resolves once its registry entry exists (the agent writes it once
 * its HTTP side answers) and its CLI is up (its status is no longer STARTING); throws with the
 * CLI's exit code and last screen lines when the CLI exits before that.
 */
export async function launchBackground(opts: { synapseArgs: string[]; env: Env; cwd: string; timeoutMs?: number; upWithinMs?: number }): Promise<Launched> {
  const dir = logsDir(opts.env);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const stamp = iso(Date.now()).replace(/[:.]/g, '-');
  const logFile = path.join(dir, `start-${stamp}-${process.pid}.log`);
  const fd = fs.openSync(logFile, 'a', 0o600);
  const child = spawn(process.execPath, [...AGENT_NODE_FLAGS, synapseBin, ...opts.synapseArgs], {
    cwd: opts.cwd,
    // The agent reads NODE_EXTRA_CA_CERTS when it first needs TLS, not at its start (extra-ca-certs.ts).
    env: deferExtraCaCerts({ ...opts.env, SYNAPSE_LOG_FILE: logFile }),
    detached: true,
    stdio: ['ignore', fd, fd],
  });
  fs.closeSync(fd);
  const pid = child.pid;
  child.unref();
  if (!pid) throw new SynapseError('internal', 'could not start the background agent');

  // The child is ours: its `exit` event says when it is gone (no /proc reads), and the registry
  // directory is watched, so this loop wakes when an entry is written, not every few milliseconds
  // on a CPU the starting agent needs (measured: ~230 ms of CPU per start at a 10 ms poll).
  let gone = false;
  let wake: () => void = () => undefined;
  child.once('exit', () => {
    gone = true;
    wake();
  });
  const registry = openRegistry(opts.env);
  const watcher = watchDir(registry.dir, () => wake());
  const registerBy = Date.now() + (opts.timeoutMs ?? REGISTER_MS);
  let upBy: number | null = null;
  let entry: RegistryEntry | undefined;
  try {
    for (;;) {
      entry = registry.readAll().find((e) => e.pid === pid) ?? entry;
      const alive = !gone && isPidAlive(pid);
      // EXITED: the agent is shutting down (its CLI exited); wait for the process to say why.
      if (alive && entry && entry.status !== 'STARTING' && entry.status !== 'EXITED') return { entry, logFile, stillStarting: false };
      if (!alive) throw goneError(pid, logFile, opts.env);
      if (entry) upBy ??= Date.now() + (opts.upWithinMs ?? CLI_UP_MS);
      if (upBy !== null && Date.now() >= upBy && entry) return { entry, logFile, stillStarting: true };
      if (!entry && Date.now() >= registerBy) {
        throw new SynapseError('internal', `the agent did not register within ${(opts.timeoutMs ?? REGISTER_MS) / 1000} s; see ${logFile}`);
      }
      // A change in the directory or the child's exit wakes it at once; the timer is the fallback.
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, watcher ? WATCHED_POLL_MS : POLL_MS);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = () => undefined;
    }
  } finally {
    watcher?.close();
  }
}
