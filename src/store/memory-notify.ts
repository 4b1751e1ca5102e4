import fs from 'node:fs';
import type { Env } from '../config/paths.js';
import { readRegistry } from './registry-reader.js';
import { isPidAlive } from '../registry/liveness.js';

export interface NotifyResult {
  /** Agent ids that accepted the notice. */
  notified: string[];
  /** Agent ids that were live in this directory but did not accept it (ignored otherwise). */
  failed: string[];
}

function realDir(dir: string): string {
  try {
    return fs.realpathSync.native(dir);
  } catch {
    return dir;
  }
}

/**
 * Sends a one-line notice to every live agent registered for `workingDir` (except `exclude`),
 * as a silent message on its `/tasks/send`, so agents learn about a new shared note without
 * being asked to answer. Loopback only; each post has its own timeout and failures are
 * counted, never thrown.
 */
export async function notifyAgents(options: { env: Env; workingDir: string; text: string; exclude?: string | null; timeoutMs?: number }): Promise<NotifyResult> {
  const here = realDir(options.workingDir);
  const targets = readRegistry(options.env).filter(
    (a) => a.port !== null && a.pid !== null && a.working_dir !== null && a.agent_id !== options.exclude && realDir(a.working_dir) === here && isPidAlive(a.pid),
  );
  const body = JSON.stringify({
    message: { role: 'user', parts: [{ type: 'text', text: options.text }] },
    metadata: { response_mode: 'silent' },
  });
  const results = await Promise.all(
    targets.map(async (a) => {
      try {
        const res = await fetch(`http://127.0.0.1:${a.port}/tasks/send`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
          signal: AbortSignal.timeout(options.timeoutMs ?? 3000),
        });
        await res.body?.cancel();
        return { id: a.agent_id, ok: res.ok };
      } catch {
        return { id: a.agent_id, ok: false };
      }
    }),
  );
  return { notified: results.filter((r) => r.ok).map((r) => r.id), failed: results.filter((r) => !r.ok).map((r) => r.id) };
}

/** The notice text: one line, so it reads well when injected into a terminal. */
export function memoryNotice(key: string, content: string, author: string | null): string {
  const flat = content.replace(/\s+/g, ' ').trim();
  const short = flat.length > 100 ? `${flat.slice(0, 99)}…` : flat;
  const quoted = /\s/.test(key) ? `"${key}"` : key;
  return `[shared memory] ${author ?? 'someone'} saved ${quoted}: ${short} (read it: synapse memory show ${quoted})`;
}
