import { execFileSync } from 'node:child_process';
import type { Env } from '../config/paths.js';
import { SynapseError } from '../errors.js';

/** Where a spawned agent runs: a pane of a terminal multiplexer, or no pane (a background agent). */
export type TerminalKind = 'tmux' | 'zellij' | 'background';
export type PaneKind = Exclude<TerminalKind, 'background'>;

/**
 * A pane, as the registry entry records it (`pane`): enough for any later `synapse` command, run
 * from anywhere, to reach it. tmux: the server's socket and the pane id (`%3`); zellij: the session
 * and the pane id (`terminal_3`).
 */
export interface PaneRef {
  kind: PaneKind;
  id: string;
  socket?: string;
  session?: string;
}

/** What spawn, kill and jump need from a multiplexer; each kind implements it (tmux.ts, zellij.ts). */
export interface PaneTerminal {
  readonly kind: PaneKind;
  /** Opens a pane beside the caller's that runs `argv` in `cwd`; the pane closes when it exits. */
  open(opts: { argv: string[]; cwd: string; title: string }): PaneRef | null;
  /** Whether the pane still exists; null when the multiplexer cannot tell. */
  alive(pane: PaneRef): boolean | null;
  close(pane: PaneRef): void;
  focus(pane: PaneRef): void;
}

/** Runs the multiplexer; its stderr becomes the error's message. */
export function runTool(command: string, args: string[], env: Env): string {
  try {
    return execFileSync(command, args, { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 10_000 }).trim();
  } catch (err) {
    const e = err as { stderr?: string; code?: string; message: string };
    if (e.code === 'ENOENT') throw new SynapseError('command_not_found', `"${command}" is not installed (or not on PATH)`);
    throw new SynapseError(
      'internal',
      `${command} ${args
        .filter((a) => !a.startsWith('/'))
        .slice(0, 2)
        .join(' ')} failed: ${(e.stderr ?? e.message).trim()}`,
    );
  }
}

/** `auto`: tmux inside tmux, zellij inside zellij, otherwise a background agent. */
export function chooseTerminal(wanted: TerminalKind | 'auto', env: Env): TerminalKind {
  if (wanted !== 'auto') return wanted;
  if (env.TMUX) return 'tmux';
  if (env.ZELLIJ !== undefined || env.ZELLIJ_SESSION_NAME) return 'zellij';
  return 'background';
}

/** The pane the process runs in, from what the multiplexer set in its environment. */
export function paneOfEnv(kind: PaneKind, env: Env): PaneRef | null {
  if (kind === 'tmux') {
    const socket = env.TMUX?.split(',')[0];
    return env.TMUX_PANE && socket ? { kind, id: env.TMUX_PANE, socket } : null;
  }
  return env.ZELLIJ_PANE_ID ? { kind, id: `terminal_${env.ZELLIJ_PANE_ID}`, ...(env.ZELLIJ_SESSION_NAME ? { session: env.ZELLIJ_SESSION_NAME } : {}) } : null;
}

/** A pane as read back from a registry entry (any JSON), or null when it is not one. */
export function paneOfEntry(entry: object): PaneRef | null {
  const p = (entry as { pane?: unknown }).pane as Partial<PaneRef> | null | undefined;
  if (!p || (p.kind !== 'tmux' && p.kind !== 'zellij') || typeof p.id !== 'string') return null;
  return {
    kind: p.kind,
    id: p.id,
    ...(typeof p.socket === 'string' ? { socket: p.socket } : {}),
    ...(typeof p.session === 'string' ? { session: p.session } : {}),
  };
}
