import type { Env } from '../config/paths.js';
import { SynapseError } from '../errors.js';
import { runTool, type PaneRef, type PaneTerminal } from './panes.js';

/**
 * zellij (not tested here: only tmux and background are; guides/team.md says so): a spawned agent
 * opens with `zellij run --close-on-exit`, so its pane closes when the agent exits; its pane id
 * comes from `$ZELLIJ_PANE_ID` inside the pane, recorded by the agent itself. Closing and focusing a
 * pane by id needs a zellij with `--pane-id` on its actions.
 */
export class ZellijTerminal implements PaneTerminal {
  readonly kind = 'zellij' as const;

  constructor(private readonly env: Env) {}

  private zellij(pane: Pick<PaneRef, 'session'> | null, args: string[]): string {
    return runTool('zellij', [...(pane?.session ? ['--session', pane.session] : []), ...args], this.env);
  }

  open(opts: { argv: string[]; cwd: string; title: string }): null {
    if (this.env.ZELLIJ === undefined && !this.env.ZELLIJ_SESSION_NAME)
      throw new SynapseError('usage', 'not inside zellij ($ZELLIJ is unset): run it from a zellij pane, or use --terminal background');
    this.zellij(null, ['run', '--close-on-exit', '--name', opts.title, '--cwd', opts.cwd, '--', ...opts.argv]);
    return null; // the agent records its own pane id
  }

  alive(): null {
    return null;
  }

  close(pane: PaneRef): void {
    this.zellij(pane, ['action', 'close-pane', '--pane-id', pane.id]);
  }

  focus(pane: PaneRef): void {
    this.zellij(pane, ['action', 'focus-pane-id', pane.id]);
  }
}
