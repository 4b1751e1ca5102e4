import type { Clock } from '../clock.js';
import { viewOf } from '../profiles/screen-rules.js';
import type { Profile } from '../profiles/types.js';
import type { CliSession } from './cli-session.js';
import type { AgentTerminal } from './terminal.js';

// Modes a TUI may have switched on in the user's terminal; all are turned off on the way out.
const RESTORE = '\x1b[?2004l\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?1004l\x1b[?1049l\x1b[?25h';

/**
 * Attaches the user's terminal: raw stdin to the PTY, PTY output to stdout, resizes forwarded.
 * Returns a restore function that is safe to call more than once and on every exit path.
 */
function attachUserTerminal(terminal: AgentTerminal, onResize: (cols: number, rows: number) => void, onUserInput: () => void): () => void {
  const stdin = process.stdin;
  const stdout = process.stdout;
  const wasRaw = stdin.isTTY ? stdin.isRaw : false;
  if (stdin.isTTY) stdin.setRawMode(true);
  stdin.resume();
  const onData = (data: Buffer) => {
    onUserInput();
    terminal.write(data.toString('utf8'));
  };
  stdin.on('data', onData);
  terminal.onData((data) => stdout.write(data));
  const resize = () => {
    if (stdout.columns && stdout.rows) onResize(stdout.columns, stdout.rows);
  };
  stdout.on('resize', resize);
  let restored = false;
  const restore = () => {
    if (restored) return;
    restored = true;
    stdin.off('data', onData);
    stdout.off('resize', resize);
    if (stdin.isTTY) stdin.setRawMode(wasRaw);
    stdin.pause();
    if (stdout.isTTY) stdout.write(RESTORE);
  };
  process.once('exit', restore);
  return restore;
}

/** A delivery waits until the human has not typed for this long. */
const USER_IDLE_MS = 2000;

/**
 * The human at the wrapped CLI's terminal (foreground agents only): their keys go to the PTY,
 * the PTY's output to their screen, and deliveries wait while they are typing or have unsent
 * text in the input box. Attached as soon as the CLI is spawned, before the agent around it has
 * loaded; `bind` hands it the session once there is one.
 */
export class UserTerminal {
  private lastInputAt = 0;
  private restore: () => void = () => undefined;
  private session: CliSession | null = null;

  constructor(
    private readonly terminal: AgentTerminal,
    private readonly profile: Profile,
    private readonly clock: Clock,
  ) {}

  start(): void {
    this.restore = attachUserTerminal(
      this.terminal,
      // Until the session exists only the PTY is resized; the session's screen takes the size then.
      (cols, rows) => (this.session ? this.session.resize(cols, rows) : this.terminal.resize(cols, rows)),
      () => (this.lastInputAt = this.clock.now()),
    );
  }

  bind(session: CliSession): void {
    this.session = session;
  }

  /** How long a delivery must wait for the human; 0 = go ahead. */
  holdForUser(): number {
    const sinceTyping = this.clock.now() - this.lastInputAt;
    if (sinceTyping < USER_IDLE_MS) return USER_IDLE_MS - sinceTyping;
    const typed = this.session ? this.profile.inputText(viewOf(this.session.screen.viewport()))?.trim() : undefined;
    return typed ? USER_IDLE_MS : 0;
  }

  /** Gives the terminal back as it was (safe to call more than once). */
  stop(): void {
    this.restore();
  }
}
