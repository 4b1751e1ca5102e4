import fs from 'node:fs';
import path from 'node:path';
import type * as NodePty from 'node-pty';
import type { IPty } from 'node-pty';
import { SynapseError } from '../errors.js';
import { requireCjs } from '../require-cjs.js';

/** The PTY as the rest of the runtime sees it: bytes in, bytes out, size, exit. */
export interface AgentTerminal {
  readonly pid: number;
  write(data: string): void;
  resize(cols: number, rows: number): void;
  onData(listener: (data: string) => void): void;
  onExit(listener: (exit: { exitCode: number; signal?: number }) => void): void;
  /** Signal to the CLI's whole process group (the CLI is the group leader of its PTY session). */
  signalGroup(signal: NodeJS.Signals): void;
  kill(signal?: NodeJS.Signals): void;
}

export interface SpawnOptions {
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  cols: number;
  rows: number;
}

/** Finds `command` on PATH the way a shell would, so a missing CLI is a clear error up front. */
export function resolveCommand(command: string, envPath: string | undefined): string | null {
  if (command.includes('/')) return isExecutable(command) ? command : null;
  for (const dir of (envPath ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, command);
    if (isExecutable(candidate)) return candidate;
  }
  return null;
}

function isExecutable(file: string): boolean {
  try {
    const st = fs.statSync(file);
    if (!st.isFile()) return false;
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export function spawnTerminal(opts: SpawnOptions): AgentTerminal {
  const resolved = resolveCommand(opts.command, opts.env.PATH);
  if (!resolved) {
    throw new SynapseError('command_not_found', `"${opts.command}" is not on PATH. Install it first (or check PATH), then run synapse again.`, {
      command: opts.command,
    });
  }
  // node-pty is CommonJS with a native addon; load it only in the agent process.
  const pty = requireCjs('node-pty') as typeof NodePty;
  const proc: IPty = pty.spawn(resolved, opts.args, {
    name: 'xterm-256color',
    cols: opts.cols,
    rows: opts.rows,
    cwd: opts.cwd,
    env: opts.env,
  });
  return {
    pid: proc.pid,
    write: (data) => proc.write(data),
    resize: (cols, rows) => {
      try {
        proc.resize(cols, rows);
      } catch {
        // resizing a PTY whose process just exited throws; nothing to resize then
      }
    },
    onData: (l) => {
      proc.onData(l);
    },
    onExit: (l) => {
      proc.onExit(l);
    },
    signalGroup: (signal) => {
      try {
        process.kill(-proc.pid, signal);
      } catch {
        try {
          process.kill(proc.pid, signal);
        } catch {
          // already gone
        }
      }
    },
    kill: (signal) => {
      try {
        proc.kill(signal);
      } catch {
        // already gone
      }
    },
  };
}
