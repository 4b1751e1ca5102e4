import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/**
 * A tmux server of the test's own (`tmux -L <unique>` with TMUX_TMPDIR in the test's temp dir), so
 * a test never touches a person's tmux; `kill()` ends it and every pane in it.
 */
export class TmuxServer {
  readonly name = `synapse-test-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  readonly socket: string;
  readonly firstPane: string;

  constructor(private readonly tmpdir: string) {
    this.run(['new-session', '-d', '-s', 'main', '-x', '200', '-y', '60']);
    const uid = typeof process.getuid === 'function' ? process.getuid() : 0;
    this.socket = path.join(tmpdir, `tmux-${uid}`, this.name);
    if (!fs.existsSync(this.socket)) throw new Error(`no tmux socket at ${this.socket}`);
    this.firstPane = this.run(['list-panes', '-F', '#{pane_id}']).split('\n')[0]!;
  }

  run(args: string[]): string {
    return execFileSync('tmux', ['-L', this.name, ...args], { env: { ...process.env, TMUX_TMPDIR: this.tmpdir }, encoding: 'utf8' }).trim();
  }

  panes(): string[] {
    return this.run(['list-panes', '-a', '-F', '#{pane_id}']).split('\n').filter(Boolean);
  }

  activePane(): string {
    return this.run(['display-message', '-p', '-t', 'main', '#{pane_id}']);
  }

  capture(pane: string): string {
    return this.run(['capture-pane', '-p', '-t', pane]);
  }

  /** What tmux sets in a pane's environment: commands run "inside" this server's first pane. */
  insideEnv(): { TMUX: string; TMUX_PANE: string } {
    return { TMUX: `${this.socket},0,0`, TMUX_PANE: this.firstPane };
  }

  kill(): void {
    try {
      this.run(['kill-server']);
    } catch {
      // already gone
    }
  }
}
