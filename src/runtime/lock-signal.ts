import type { Env } from '../config/paths.js';
import { locksHeldBy } from '../store/file-safety.js';
import type { AgentStatusModel } from './agent-status.js';

/** Locks are taken by other processes (`synapse file-safety lock`), so the agent looks. */
const POLL_MS = 2_000;

/**
 * Feeds the compound status: how many file-safety locks this agent holds. `refresh()` reads now
 * (called before a READY screen is reported, so READY never flashes while locks are held); a
 * timer reads every 2 s for locks taken or released while the screen stays quiet. An unreadable
 * database changes nothing: the last count stands until it can be read again.
 */
export function startLockSignal(cwd: string, agentId: string, env: Env, status: AgentStatusModel): { refresh(): void; stop(): void } {
  const refresh = (): void => {
    try {
      status.setLocksHeld(locksHeldBy(cwd, agentId, env).length);
    } catch {
      // Busy or unreadable for a moment: the next poll tries again.
    }
  };
  const timer = setInterval(refresh, POLL_MS);
  timer.unref();
  return { refresh, stop: () => clearInterval(timer) };
}
