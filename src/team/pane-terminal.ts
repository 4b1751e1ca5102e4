import type { Env } from '../config/paths.js';
import type { PaneKind, PaneTerminal } from './panes.js';

/** The multiplexer of that kind; its module loads only when a pane is opened, closed or focused. */
export async function paneTerminal(kind: PaneKind, env: Env): Promise<PaneTerminal> {
  if (kind === 'tmux') return new (await import('./tmux.js')).TmuxTerminal(env);
  return new (await import('./zellij.js')).ZellijTerminal(env);
}
