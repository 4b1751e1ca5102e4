import type { Profile } from '../profiles/types.js';
import type { Clock } from './clock.js';
import type { AgentTerminal } from './terminal.js';

const PASTE_START = '\x1b[200~';
const PASTE_END = '\x1b[201~';

/** Writes already-sanitised text into the CLI the way its profile says it takes input. */
export class Injector {
  constructor(
    private readonly terminal: AgentTerminal,
    private readonly profile: Profile,
    private readonly clock: Clock,
  ) {}

  /**
   * Text first (one bracketed paste, or typed with newlines flattened), then the submit key as
   * its own write after the profile's delay. `onSubmit` runs right after the submit key is written.
   */
  inject(text: string, onTextWritten?: () => void): Promise<void> {
    const { bracketedPaste, key, delayMs } = this.profile.submit;
    this.terminal.write(bracketedPaste ? `${PASTE_START}${text}${PASTE_END}` : text.replace(/\n+/g, ' '));
    onTextWritten?.();
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
