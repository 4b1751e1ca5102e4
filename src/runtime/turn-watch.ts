import type { Clock } from '../clock.js';
import { viewOf } from '../profiles/screen-rules.js';
import { linesSince } from '../profiles/text.js';
import type { Profile, TurnScreen, TurnSeen } from '../profiles/types.js';
import type { LinesAt } from './screen.js';
import type { ScreenStatus } from './screen-status.js';

/** What a turn watch reads: the rendered screen (the runtime's `Screen`, or recorded frames in tests). */
interface ScreenSource {
  /** Incremented after every change. */
  readonly seq: number;
  /** Line feeds parsed so far. */
  readonly lineFeeds: number;
  viewport(): string[];
  linesAt(): LinesAt;
}

interface TurnWatchDeps {
  profile: Profile;
  screen: ScreenSource;
  clock: Clock;
  /** The latest settled reading's status: a window ends only while the screen reads idle. */
  status: () => ScreenStatus | undefined;
}

/**
 * One delivered message's turn, from its submit key until the CLI is idle again. It keeps what
 * the readings saw, asks the profile's turn strategy what an idle screen means, runs the window
 * the strategy asks for, and calls `onOver` when the turn is over. The same for every CLI: what
 * one CLI's screen means is its strategy's business (`Profile.turn`).
 */
export class TurnWatch {
  /** The screen's change counter right after the submit key: readings up to it predate the turn. */
  readonly seqAtSubmit: number;
  private readonly viewAtSubmit: string;
  private readonly lineFeedsAtSubmit: number;
  private sawBusy = false;
  private timer: NodeJS.Timeout | undefined;
  /** The window the timer runs (a fresh verdict naming it keeps it), and whether a drawn reply re-judges it. */
  private window: string | undefined;
  private recheckOnReply = false;
  private stopped = false;

  constructor(
    private readonly deps: TurnWatchDeps,
    private readonly framed: string,
    /** All screen lines just before the message was typed in. */
    private readonly before: LinesAt,
    private readonly onOver: () => void,
  ) {
    this.seqAtSubmit = deps.screen.seq;
    this.viewAtSubmit = deps.screen.viewport().join('\n');
    this.lineFeedsAtSubmit = deps.screen.lineFeeds;
  }

  /** The window running now, or null. */
  get waiting(): string | null {
    return this.timer ? (this.window ?? null) : null;
  }

  /** The echo check: the screen shows the message taken. */
  echoed(settled: boolean): boolean {
    return this.deps.profile.turn.echoed(this.screen(), settled);
  }

  /** On an idle screen: the turn is over and only settles (finish it rather than interrupt it). */
  onlySettling(): boolean {
    return this.deps.profile.turn.onlySettling(this.screen(), this.seen());
  }

  /** A settled reading saw the CLI working or asking: the turn runs, and a running window is void. */
  busy(): void {
    this.sawBusy = true;
    this.deps.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** A settled reading saw the CLI idle: is the turn over? */
  idle(): void {
    this.judge();
  }

  /** The screen changed: a window held for an empty reply is judged again as soon as a reply shows. */
  changed(): void {
    if (this.timer && this.recheckOnReply && this.reply() !== '') this.judge();
  }

  /** The lines drawn since the message was typed in, lined up across lines trimmed off the top. */
  private linesSinceSubmit(): string[] {
    const now = this.deps.screen.linesAt();
    const sameLayout = now.origin.epoch === this.before.origin.epoch;
    return linesSince(this.before.lines, now.lines, sameLayout ? now.origin.first - this.before.origin.first : 0);
  }

  /** Everything the turn drew (tool calls and their output too), for output parsing. */
  transcript(): string {
    return this.linesSinceSubmit()
      .map((l) => l.trimEnd())
      .join('\n');
  }

  /** The reply as it would be read off the screen now. */
  reply(): string {
    return this.deps.profile.cleanOutput(this.linesSinceSubmit(), this.framed);
  }

  stop(): void {
    this.stopped = true;
    this.deps.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private judge(): void {
    const verdict = this.deps.profile.turn.judge(this.screen(), this.seen());
    if (verdict.kind === 'not-over') return;
    if (verdict.kind === 'finish') {
      this.onOver();
      return;
    }
    if (this.timer && this.window === verdict.window) return;
    this.deps.clock.clearTimeout(this.timer);
    this.window = verdict.window;
    this.recheckOnReply = verdict.recheckOnReply === true;
    const still = verdict.watch === 'reply' ? () => this.reply() : () => String(this.deps.screen.seq);
    const before = still();
    this.timer = this.deps.clock.setTimeout(() => {
      this.timer = undefined;
      if (this.stopped || this.deps.status() !== 'READY') return;
      // It moved during the window (readings that came meanwhile found the window running and
      // kept it): judge again over a fresh window, or nothing would ever finish the turn.
      if (still() === before) this.onOver();
      else this.judge();
    }, verdict.ms);
  }

  /** This turn's screen now; its rows and reply are read once, on first use. */
  private screen(): TurnScreen {
    const view = viewOf(this.deps.screen.viewport());
    let lines: string[] | undefined;
    let reply: string | undefined;
    const turn: TurnScreen = {
      framed: this.framed,
      view,
      inputText: this.deps.profile.inputText(view),
      lines: () => (lines ??= this.linesSinceSubmit()),
      reply: () => (reply ??= this.deps.profile.cleanOutput(turn.lines(), this.framed)),
    };
    return turn;
  }

  private seen(): TurnSeen {
    return { sawBusy: this.sawBusy, viewAtSubmit: this.viewAtSubmit, lineFeedsSinceSubmit: this.deps.screen.lineFeeds - this.lineFeedsAtSubmit };
  }
}
