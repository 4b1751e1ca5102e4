import fs from 'node:fs';
import path from 'node:path';

/** A long message's file: 0600 in a 0700 directory (tightened if it already existed), named by its task. */
export function writeMessageFile(dir: string, taskId: string, content: string): string {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  fs.chmodSync(dir, 0o700);
  const file = path.join(dir, `${taskId}.txt`);
  fs.writeFileSync(file, content, { mode: 0o600 });
  return file;
}

/** Removes the message files written more than `ttlMs` ago (`SYNAPSE_LONG_MESSAGE_TTL`); returns how many. */
export function sweepMessageFiles(dir: string, ttlMs: number, now = Date.now()): number {
  let removed = 0;
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return 0;
  }
  for (const name of names) {
    const file = path.join(dir, name);
    try {
      if (now - fs.statSync(file).mtimeMs > ttlMs) {
        fs.rmSync(file, { force: true });
        removed++;
      }
    } catch {
      // raced with another agent's sweep
    }
  }
  return removed;
}

/** The longest a file outlives its TTL: the sweep runs this often (or at the TTL, when shorter). */
const SWEEP_EVERY_MS = 60_000;

/**
 * Sweeps the directory now and then on a timer while the agent runs, so a message file is gone
 * within a minute of its TTL even in an agent that runs for days. Returns the stop function.
 */
export function startMessageSweep(dir: string, ttlMs: number): () => void {
  sweepMessageFiles(dir, ttlMs);
  const timer = setInterval(() => sweepMessageFiles(dir, ttlMs), Math.min(ttlMs, SWEEP_EVERY_MS));
  timer.unref();
  return () => clearInterval(timer);
}
