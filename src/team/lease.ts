import type { Settings } from '../config/settings.js';
import { SynapseError } from '../errors.js';
import { parseDuration } from '../store/duration.js';

/**
 * A spawned helper's lease: it ends by itself after `idleMs` READY with no task, or after `turns`
 * answered tasks (runtime/lease.ts keeps it). From `synapse spawn --keep-idle/--keep-turns` or
 * `POST /spawn` `keep_idle`/`keep_turns`, else the settings `spawn.keepIdle`/`spawn.keepTurns`;
 * `0` turns either off.
 */
export interface LeaseTerms {
  idleMs?: number;
  turns?: number;
}

/** `600`, `90s`, `10m`, `1h30m` (or seconds as a number) → ms; `0` → none. */
function idleOf(value: string | number, what: string): number | undefined {
  if (value === 0 || (typeof value === 'string' && /^0+(\.0+)?[a-z]*$/i.test(value.trim()))) return undefined;
  return typeof value === 'number' ? value * 1000 : parseDuration(value, 's', what);
}

function turnsOf(value: string | number, what: string): number | undefined {
  const n = typeof value === 'number' ? value : Number(value.trim());
  if (!Number.isInteger(n) || n < 0 || (typeof value === 'string' && !/^\d+$/.test(value.trim())))
    throw new SynapseError('usage', `${what} is a whole number of answered tasks (0 = no limit), got "${value}"`);
  return n === 0 ? undefined : n;
}

/** The lease of one spawn: what it asks for, over the settings' defaults. */
export function leaseTerms(
  asked: { keepIdle?: string | number | undefined; keepTurns?: string | number | undefined },
  defaults: Settings['spawn'],
): LeaseTerms {
  const idle = asked.keepIdle ?? defaults.keepIdle;
  const turns = asked.keepTurns ?? defaults.keepTurns;
  const idleMs = idle === null ? undefined : idleOf(idle, asked.keepIdle !== undefined ? '--keep-idle' : 'spawn.keepIdle');
  const turnCount = turns === null ? undefined : turnsOf(turns, asked.keepTurns !== undefined ? '--keep-turns' : 'spawn.keepTurns');
  return { ...(idleMs !== undefined ? { idleMs } : {}), ...(turnCount !== undefined ? { turns: turnCount } : {}) };
}
