import type { Profile } from '../profiles/types.js';
import type { Clock } from '../clock.js';
import type { AgentTerminal } from './terminal.js';

const PASTE_START = '\x1b[200~';
const PASTE_END = '\x1b[201~';
const CLEAR_SETTLE_MS = 50;

/** Writes already-sanitised text into the CLI the way its profile says it takes input. */
export class Injector {
  constructor(
    private readonly terminal: AgentTerminal,
    private readonly profile: Profile,
    private readonly clock: Clock,
  ) {}

  /**
   * Text first (one bracketed paste, or typed with newlines flattened), then the submit key as
   * its own write after the profile's delay; resolves once the submit key is written.
   */
  async inject(text: string, opts: { clearFirst?: boolean } = {}): Promise<void> {
    const { bracketedPaste, key, delayMs } = this.profile.submit;
    if (opts.clearFirst && this.profile.clearInputKey) {
      // Text left in the input box (e.g. a prompt the CLI restored after an interrupt) would be
      // submitted together with the message: clear the row first.
      this.terminal.write(this.profile.clearInputKey);
      await new Promise((r) => this.clock.setTimeout(() => r(undefined), CLEAR_SETTLE_MS));
    }
    this.terminal.write(bracketedPaste ? `${PASTE_START}${text}${PASTE_END}` : text.replace(/\n+/g, ' '));
    return new Promise((resolve) => {
      this.clock.setTimeout(() => {
        this.terminal.write(key);
        resolve();
      }, delayMs);
    });
  }

  /** The profile's interrupt: a key (ESC for most TUIs) or a signal to the CLI's process group. */
  interrupt(): void {
    const i = this.profile.interrupt;
    if (i.kind === 'key') this.terminal.write(i.key);
    else this.terminal.signalGroup(i.signal);
  }

  /** Raw keys, for answering a CLI's own menus. */
  keys(data: string): void {
    this.terminal.write(data);
  }
}
