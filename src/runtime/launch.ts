import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { logsDir, type Env } from '../config/paths.js';
import { SynapseError } from '../errors.js';
import type { RegistryEntry } from '../registry/entry.js';
import { isPidAlive } from '../registry/liveness.js';
import { openRegistry } from '../registry/lookup.js';

const BIN = fileURLToPath(new URL('../../bin/synapse.js', import.meta.url));

/**
 * `synapse start`: runs `synapse <synapseArgs>` (the agent's options, cli/detached.ts: the same
 * code path as `synapse <profile> --headless`), detached in its own process group with
 * stdout/stderr in a log file. Resolves as soon as its registry entry exists, which the agent
 * writes once its HTTP side answers.
 */
export async function launchBackground(opts: {
  synapseArgs: string[];
  env: Env;
  cwd: string;
  timeoutMs?: number;
}): Promise<{ entry: RegistryEntry; logFile: string }> {
  const dir = logsDir(opts.env);
  fs.mkdirSync(dir, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const logFile = path.join(dir, `start-${stamp}-${process.pid}.log`);
  const fd = fs.openSync(logFile, 'a');
  const child = spawn(process.execPath, ['--max-semi-space-size=1', BIN, ...opts.synapseArgs], {
    cwd: opts.cwd,
    env: { ...opts.env, SYNAPSE_LOG_FILE: logFile },
    detached: true,
    stdio: ['ignore', fd, fd],
  });
  fs.closeSync(fd);
  const pid = child.pid;
  child.unref();
  if (!pid) throw new SynapseError('internal', 'could not start the background agent');

  const registry = openRegistry(opts.env);
  const deadline = Date.now() + (opts.timeoutMs ?? 15_000);
  while (Date.now() < deadline) {
    const entry = registry.readAll().find((e) => e.pid === pid);
    if (entry) return { entry, logFile };
    if (!isPidAlive(pid)) {
      const tail = fs.readFileSync(logFile, 'utf8').trim().split('\n').slice(-5).join('\n');
      throw new SynapseError('internal', `the agent exited during start-up:\n${tail}\n(full log: ${logFile})`);
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new SynapseError('internal', `the agent did not register within ${(opts.timeoutMs ?? 15_000) / 1000} s; see ${logFile}`);
}
