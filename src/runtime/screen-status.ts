import { EventEmitter } from 'node:events';
import { classifyScreen, viewOf } from '../profiles/screen-rules.js';
import type { Profile } from '../profiles/types.js';
import type { Clock } from '../clock.js';

export type ScreenStatus = 'READY' | 'PROCESSING' | 'WAITING';

export interface ScreenReading {
  status: ScreenStatus;
  /** The screen's change counter when this reading was taken. */
  seq: number;
  at: number;
}

/** How long output must be quiet before the screen is read (half-drawn frames are skipped). */
export const SETTLE_MS = 40;
const DEFAULT_PROTECTION_MS = 10_000;

/**
 * Reads the CLI's state off the rendered screen once output has settled. Emits `reading`
 * for every evaluation (so waiters can act on a fresh READY) and `change` when it differs.
 */
export class ScreenStatusTracker extends EventEmitter {
  private timer: NodeJS.Timeout | undefined;
  private quietTimer: NodeJS.Timeout | undefined;
  private lastOutputAt = 0;
  current: ScreenReading | null = null;

  constructor(
    private readonly profile: Profile,
    private readonly read: () => { lines: string[]; seq: number },
    private readonly clock: Clock,
    /** True while a quiet screen must not count as idle yet (locks held, task in flight). */
    private readonly isProtected: () => boolean = () => false,
  ) {
    super();
  }

  /** Called after each parsed PTY write. */
  onOutput(): void {
    this.lastOutputAt = this.clock.now();
    this.clock.clearTimeout(this.timer);
    this.timer = this.clock.setTimeout(() => this.evaluate(), SETTLE_MS);
  }

  /** Re-read now (e.g. after a resize or when a caller needs a fresh verdict). */
  evaluate(): void {
    this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    const { lines, seq } = this.read();
    const status = classifyScreen(this.profile, viewOf(lines));
    if (status) {
      this.clock.clearTimeout(this.quietTimer);
      this.quietTimer = undefined;
      this.set(status, seq);
      return;
    }
    // Nothing matched: keep the last reading; maybe fall back on quiet time.
    const base = this.profile.status.quietReadyMs;
    const quiet = base === null ? null : this.isProtected() ? Math.max(base, this.profile.status.protectionMs ?? DEFAULT_PROTECTION_MS) : base;
    if (quiet !== null && this.quietTimer === undefined) {
      this.quietTimer = this.clock.setTimeout(
        () => {
          this.quietTimer = undefined;
          const waited = this.clock.now() - this.lastOutputAt;
          if (waited >= quiet) this.set('READY', this.read().seq);
          else this.evaluate();
        },
        Math.max(0, this.lastOutputAt + quiet - this.clock.now()),
      );
    }
  }

  private set(status: ScreenStatus, seq: number): void {
    const reading: ScreenReading = { status, seq, at: this.clock.now() };
    const changed = this.current?.status !== status;
    this.current = reading;
    this.emit('reading', reading);
    if (changed) this.emit('change', reading);
  }

  stop(): void {
    this.clock.clearTimeout(this.timer);
    this.clock.clearTimeout(this.quietTimer);
  }
}
