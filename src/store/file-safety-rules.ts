import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type { Clock } from '../clock.js';
import { SynapseError } from '../errors.js';
import { formatDuration } from './duration.js';
import { normalizeDirPath, normalizeFilePath } from './file-paths.js';
import type { FileLock, LockKind, LockResult } from './file-safety-schema.js';
import type { LockWaitOptions } from './file-safety-api.js';

/** The rules both file-safety backends share: lock patterns, overlap, the holder's error, agent ids. */

/** How a lock is written: the path, with `/**` after a tree's directory. */
function lockLabel(lock: Pick<FileLock, 'path' | 'kind'>): string {
  return lock.kind === 'tree' ? `${lock.path}/**` : lock.path;
}

const GLOB = /[*?[\]{}]/;

/**
 * `dir/**` is a tree lock on `dir`; a path with no glob characters is a file lock; anything else
 * (`src/*.ts`, `**`, a `**` in the middle, `src/auth/*`) is refused: a lock must say exactly what it covers.
 */
export function parseLockPattern(input: string): { base: string; kind: LockKind } {
  const raw = typeof input === 'string' ? input.trim() : '';
  if (!GLOB.test(raw)) return { base: raw, kind: 'file' };
  const tree = /^(.*?)\/+\*\*\/?$/.exec(raw);
  const base = tree?.[1] ?? '';
  if (!tree || base.trim() === '' || GLOB.test(base)) {
    throw new SynapseError(
      'invalid_input',
      `ambiguous lock pattern ${JSON.stringify(input)}: lock one file (src/app.ts) or one directory tree written as the directory followed by /** (src/auth/**)`,
    );
  }
  return { base, kind: 'tree' };
}

function isUnder(child: string, dir: string): boolean {
  return child === dir || child.startsWith(dir.endsWith(path.sep) ? dir : `${dir}${path.sep}`);
}

export function overlaps(held: Pick<FileLock, 'path' | 'kind'>, wanted: { path: string; kind: LockKind }): boolean {
  if (held.path === wanted.path) return true;
  return (held.kind === 'tree' && isUnder(wanted.path, held.path)) || (wanted.kind === 'tree' && isUnder(held.path, wanted.path));
}

export function heldError(holder: FileLock, now: number): SynapseError {
  const left = formatDuration(Date.parse(holder.expires_at) - now);
  const pid = holder.pid === null ? '' : `, pid ${holder.pid}`;
  const intent = holder.intent ? `: ${holder.intent}` : '';
  return new SynapseError('lock_held', `${lockLabel(holder)} is locked by ${holder.agent_id}${pid} (expires in ${left})${intent}`, { holder });
}

export function requireAgent(agent: string): string {
  const who = typeof agent === 'string' ? agent.trim() : '';
  if (who.length === 0) throw new SynapseError('usage', 'an agent id or name is required');
  if (who.length > 200) throw new SynapseError('invalid_input', 'agent id is too long');
  return who;
}

/** `attempt` (a lock), retried while another agent holds the path, until `wait.timeoutMs` has passed. */
export async function waitForLock(attempt: () => Promise<LockResult>, clock: Clock, wait: LockWaitOptions): Promise<LockResult> {
  const deadline = clock.now() + wait.timeoutMs;
  for (;;) {
    try {
      return await attempt();
    } catch (err) {
      const holder = (err as SynapseError).details?.holder as FileLock | undefined;
      if (!(err instanceof SynapseError) || err.code !== 'lock_held' || !holder) throw err;
      const left = deadline - clock.now();
      if (left <= 0) {
        throw new SynapseError('lock_held', `${err.message}; gave up after waiting ${formatDuration(wait.timeoutMs)}`, err.details);
      }
      wait.onWait?.(holder);
      await delay(Math.min(wait.intervalMs, left));
    }
  }
}

/**
 * A lock target: a file, or a directory tree written `dir/**`; any other glob is refused. A path
 * that climbs out of the project (`../x`, an absolute path elsewhere, a symlink that points
 * outside) is refused: a lock is for the project's own files, and a peer must not make an agent
 * guard, or name, files outside it.
 */
export function lockTarget(input: string, baseDir: string): { path: string; kind: LockKind } {
  const { base, kind } = parseLockPattern(input);
  const filePath = normalizeFilePath(base, baseDir);
  const root = normalizeDirPath(baseDir);
  const rel = path.relative(root, filePath);
  if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel))
    throw new SynapseError('invalid_input', `${JSON.stringify(input)} is not a file of the project (${root}): lock files inside it, e.g. src/app.ts`);
  return { path: filePath, kind };
}
