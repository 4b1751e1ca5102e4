import type { Env } from '../config/paths.js';
import { SynapseError } from '../errors.js';
import { runTool, type PaneRef, type PaneTerminal } from './panes.js';

/**
 * tmux: a spawned agent opens with `split-window` beside the caller's pane (then the window is
 * re-tiled so the next split has room); every later command names the server by its socket (from
 * `$TMUX`, recorded in the entry), so it works from any terminal and never from the wrong server.
 */
export class TmuxTerminal implements PaneTerminal {
  readonly kind = 'tmux' as const;

  constructor(private readonly env: Env) {}

  private tmux(socket: string | undefined, args: string[]): string {
    return runTool('tmux', [...(socket ? ['-S', socket] : []), ...args], this.env);
  }

  open(opts: { argv: string[]; cwd: string; title: string }): PaneRef {
    const socket = this.env.TMUX?.split(',')[0];
    if (!socket) throw new SynapseError('usage', 'not inside tmux ($TMUX is unset): run it from a tmux pane, or use --terminal background');
    const target = this.env.TMUX_PANE ? ['-t', this.env.TMUX_PANE] : [];
    const id = this.tmux(socket, ['split-window', '-d', '-P', '-F', '#{pane_id}', ...target, '-c', opts.cwd, '--', ...opts.argv]);
    // Best effort: a title and room for the next split.
    try {
      this.tmux(socket, ['select-pane', '-t', id, '-T', opts.title]);
      this.tmux(socket, ['select-layout', '-t', id, 'tiled']);
    } catch {
      // the pane is there; its layout is cosmetic
    }
    return { kind: 'tmux', id, socket };
  }

  alive(pane: PaneRef): boolean {
    try {
      return this.tmux(pane.socket, ['list-panes', '-a', '-F', '#{pane_id}']).split('\n').includes(pane.id);
    } catch {
      return false; // the server is gone, and its panes with it
    }
  }

  close(pane: PaneRef): void {
    if (this.alive(pane)) this.tmux(pane.socket, ['kill-pane', '-t', pane.id]);
  }

  focus(pane: PaneRef): void {
    if (!this.alive(pane)) throw new SynapseError('not_found', `tmux pane ${pane.id} is gone`);
    this.tmux(pane.socket, ['select-window', '-t', pane.id]);
    this.tmux(pane.socket, ['select-pane', '-t', pane.id]);
    // This terminal, when it is a client of that server, shows the pane's session (none attached: nothing to switch).
    if (this.env.TMUX?.split(',')[0] === pane.socket) {
      try {
        this.tmux(pane.socket, ['switch-client', '-t', pane.id]);
      } catch {
        // no client here: the pane is selected for whoever attaches
      }
    }
  }
}
