import { spawnTerminal, type AgentTerminal, type SpawnOptions } from './terminal.js';

/** At most this much output is held for the screen while the agent loads; older chunks go first. */
const HOLD_LIMIT = 4 * 1024 * 1024;

export interface PtyExit {
  exitCode: number;
  signal?: number;
}

/**
 * The wrapped CLI, spawned before the rest of the agent has loaded (the HTTP server, the stores,
 * the terminal emulator), so that it starts as soon as without Synapse. Its output is held until
 * the session's screen takes it; a person's terminal (foreground) reads it directly from the PTY.
 */
export class EarlyCli {
  readonly terminal: AgentTerminal;
  /** Resolves with the CLI's exit, whenever it happens. */
  readonly exited: Promise<PtyExit>;
  /** Resolves once the CLI has written anything (a person's terminal has it by then: passthrough.ts). */
  readonly firstOutput: Promise<void>;
  private held: string[] = [];
  private heldBytes = 0;
  private sink: ((data: string) => void) | null = null;

  /** `watch` is told the size of every chunk of output (optimizer-gate.ts). */
  constructor(opts: SpawnOptions, watch?: (chars: number) => void) {
    this.terminal = spawnTerminal(opts);
    let outputSeen: () => void = () => undefined;
    this.firstOutput = new Promise((resolve) => (outputSeen = resolve));
    this.terminal.onData((data) => {
      outputSeen();
      watch?.(data.length);
      if (this.sink) this.sink(data);
      else this.hold(data);
    });
    this.exited = new Promise((resolve) => this.terminal.onExit(resolve));
  }

  private hold(data: string): void {
    this.held.push(data);
    this.heldBytes += data.length;
    while (this.heldBytes > HOLD_LIMIT && this.held.length > 1) this.heldBytes -= this.held.shift()!.length;
  }

  /** From now on the output goes to `sink`, starting with what was held. */
  take(sink: (data: string) => void): void {
    for (const data of this.held.splice(0)) sink(data);
    this.heldBytes = 0;
    this.sink = sink;
  }
}
