import { iso, type Clock } from '../clock.js';
import { formatDuration } from '../store/duration.js';
import type { AgentStatusModel } from './agent-status.js';

/** The lease a spawned helper runs under (team/lease.ts makes it from `synapse spawn --keep-idle/--keep-turns`). */
export interface LeaseTerms {
  /** End after this long READY with nothing in flight or queued. */
  idleMs?: number;
  /** End after this many answered (completed) tasks. */
  turns?: number;
}

/** The lease as the registry entry shows it (`lease`), kept up to date by `Lease`. */
export interface LeaseRecord {
  keep_idle_s: number | null;
  keep_turns: number | null;
  turns_answered: number;
  /** When the agent ends if it stays idle (READY, nothing to do); null while it works or without an idle lease. */
  idle_ends_at: string | null;
}

export function leaseRecord(terms: LeaseTerms): LeaseRecord {
  return { keep_idle_s: terms.idleMs !== undefined ? terms.idleMs / 1000 : null, keep_turns: terms.turns ?? null, turns_answered: 0, idle_ends_at: null };
}

/**
 * Helpers end by themselves. An agent started with a lease ends (through its normal shutdown,
 * as `synapse kill` would end it) once it has been READY with no task for `idleMs`, or once it
 * has answered `turns` tasks: from the moment the last one is answered it takes no more messages
 * (`closed`), and it ends as soon as that turn is over.
 */
export class Lease {
  private answeredCount = 0;
  private idleTimer: NodeJS.Timeout | undefined;
  private spent = false;
  private ending = false;

  constructor(
    private readonly d: {
      terms: LeaseTerms;
      /** The registry entry's `lease` object: updated in place, written with the entry. */
      record: LeaseRecord;
      clock: Clock;
      status: AgentStatusModel;
      /** A task is in the CLI now. */
      inFlight: () => boolean;
      /** Tasks wait in the inbox. */
      queued: () => boolean;
      /** Ends the agent, gracefully. */
      end: (reason: string) => void;
    },
  ) {}

  /** No more messages: the last answered turn is spent, or the agent is ending. */
  get closed(): boolean {
    return this.spent || this.ending;
  }

  /** Listens to the status; call before the listener that writes the registry entry, so that it writes this one's view. */
  start(): void {
    this.d.status.on('change', () => this.check());
    this.check();
  }

  /** A task the CLI worked on completed. */
  answered(): void {
    this.answeredCount++;
    this.d.record.turns_answered = this.answeredCount;
    if (this.d.terms.turns !== undefined && this.answeredCount >= this.d.terms.turns) this.spent = true;
    this.check();
  }

  /** READY with nothing in flight or queued, under an idle lease that is not spent. */
  private isIdle(): boolean {
    return this.d.terms.idleMs !== undefined && !this.spent && this.d.status.status === 'READY' && !this.d.inFlight() && !this.d.queued();
  }

  /** Something changed (status, the task in flight, the inbox): end, or start or stop the idle clock. */
  check(): void {
    if (this.ending) return;
    if (this.spent && !this.d.inFlight()) return this.finish(`${this.answeredCount} answered task(s) of the ${this.d.terms.turns} it was kept for`);
    if (!this.isIdle()) return this.disarm();
    if (this.idleTimer) return;
    const idleMs = this.d.terms.idleMs!;
    this.d.record.idle_ends_at = iso(this.d.clock.now() + idleMs);
    this.idleTimer = this.d.clock.setTimeout(() => {
      this.idleTimer = undefined;
      if (this.isIdle()) this.finish(`READY with no task for ${formatDuration(idleMs)}`);
      else this.check();
    }, idleMs);
    this.idleTimer.unref?.();
  }

  private disarm(): void {
    this.d.clock.clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    this.d.record.idle_ends_at = null;
  }

  private finish(reason: string): void {
    this.disarm();
    this.ending = true;
    this.d.end(`its lease ran out: ${reason}`);
  }

  stop(): void {
    this.disarm();
  }
}
