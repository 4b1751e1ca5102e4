import type { Clock } from '../clock.js';
import type { Profile } from '../profiles/types.js';
import type { EarlyCli, PtyExit } from './early-cli.js';
import { Injector } from './injector.js';
import { Screen } from './screen.js';
import { ScreenStatusTracker } from './screen-status.js';
import type { AgentTerminal } from './terminal.js';

export interface CliSessionOptions {
  profile: Profile;
  /** The CLI, already running (spawned before the agent loaded the rest). */
  cli: EarlyCli;
  /** Its command line, for the log. */
  commandLine: string;
  size: { cols: number; rows: number };
  clock: Clock;
  /** Rows of scrollback the rendered screen keeps (`SYNAPSE_SCROLLBACK_LINES`). */
  scrollbackLines?: number;
}

/** How long a hung-up CLI may take to exit before SIGKILL, and how long shutdown waits in all. */
const HANGUP_KILL_MS = 2000;
const HANGUP_WAIT_MS = 2500;

/**
 * The wrapped CLI and what reads it: the PTY, the rendered screen every byte goes through, the
 * status tracker reading that screen, and the injector that types into the PTY. The CLI is
 * spawned before (EarlyCli); its output so far reaches the screen when the session is built.
 */
export class CliSession {
  readonly screen: Screen;
  readonly terminal: AgentTerminal;
  readonly tracker: ScreenStatusTracker;
  readonly injector: Injector;
  /** Resolves with the CLI's exit once it has exited. */
  readonly exited: Promise<PtyExit>;
  private exitCode: number | null = null;
  private isProtected: () => boolean = () => false;

  constructor(private readonly opts: CliSessionOptions) {
    const { profile, clock, size } = opts;
    this.screen = new Screen(size.cols, size.rows, { scrollback: opts.scrollbackLines });
    this.terminal = opts.cli.terminal;
    this.tracker = new ScreenStatusTracker(
      profile,
      () => ({ lines: this.screen.viewport(), seq: this.screen.seq }),
      clock,
      () => this.isProtected(),
    );
    this.injector = new Injector(this.terminal, profile, clock);
    this.screen.onChange(() => this.tracker.onOutput());
    opts.cli.take((data) => this.screen.write(data));
    this.exited = opts.cli.exited.then((exit) => {
      this.exitCode = exit.exitCode;
      return exit;
    });
  }

  /** The command line, for the log. */
  get commandLine(): string {
    return this.opts.commandLine;
  }

  /** The CLI's exit code, or null while it runs. */
  get exitedWith(): number | null {
    return this.exitCode;
  }

  /** While this says true, a quiet screen does not count as idle (a task in flight, locks held). */
  protectWhile(isProtected: () => boolean): void {
    this.isProtected = isProtected;
  }

  resize(cols: number, rows: number): void {
    this.terminal.resize(cols, rows);
    this.screen.resize(cols, rows);
    this.tracker.onOutput();
  }

  /**
   * Ends a running CLI as a terminal hang-up does: SIGHUP to its whole process group (Gemini CLI
   * relaunches itself in a child process, and a SIGHUP to the leader alone left it running),
   * SIGKILL if it is still there after 2 s. Resolves when it exited or 2.5 s have passed.
   */
  async hangUp(): Promise<void> {
    if (this.exitCode !== null) return;
    const { clock } = this.opts;
    this.terminal.signalGroup('SIGHUP');
    const killTimer = clock.setTimeout(() => this.terminal.signalGroup('SIGKILL'), HANGUP_KILL_MS);
    let waitTimer: NodeJS.Timeout | undefined;
    await Promise.race([this.exited, new Promise((r) => (waitTimer = clock.setTimeout(() => r(undefined), HANGUP_WAIT_MS)))]);
    clock.clearTimeout(killTimer);
    clock.clearTimeout(waitTimer);
  }

  stop(): void {
    this.tracker.stop();
    this.screen.dispose();
  }
}
