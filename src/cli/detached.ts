/** The hidden first argument with which `synapse start` runs its agent (runtime/launch.ts). */
export const DETACHED_AGENT = '__agent';

/** What `synapse start` checked and hands to its background agent (the options of `synapse <profile>`). */
export interface DetachedAgent {
  profile: string;
  cliArgs: string[];
  flags: {
    name?: string | undefined;
    role?: string | undefined;
    port?: number | undefined;
    host?: string | undefined;
    autoApprove?: boolean | undefined;
    /** `--delegate-mode`: a manager (the registry entry's `delegate_mode`). */
    delegateMode?: boolean | undefined;
    /**
     * `--worktree [name]`: the worktree `synapse start --worktree` made (the agent is launched in
     * it), or a name / true for the agent to make it (`synapse spawn` in the background).
     */
    worktree?: { name: string; path: string; branch: string } | string | true | undefined;
    /** The lease of a spawned helper (`synapse spawn --keep-idle`): ends after this long READY with no task. */
    keepIdleMs?: number | undefined;
    /** The lease: ends after this many answered tasks (`--keep-turns`). */
    keepTurns?: number | undefined;
  };
  /** More registry entry fields (`synapse spawn`: `spawned_by_pid`, `skill_set`, `spawn_depth`). */
  extras?: Record<string, unknown> | undefined;
}

/**
 * The `synapse` arguments of a background agent: its options as one JSON argument, so that the
 * agent process parses no command line (commander and the command declarations stay unloaded:
 * ~3 MiB and tens of milliseconds of every background agent). run-agent.ts `runDetached` reads it.
 */
export function detachedArgs(agent: DetachedAgent): string[] {
  return [DETACHED_AGENT, JSON.stringify(agent)];
}

/** The hidden first argument of a spawned agent's pane: `synapse __pane <spec file>` (team/spawn.ts). */
export const PANE_AGENT = '__pane';

/**
 * The hidden first argument with which an agent runs `POST /spawn` and `POST /team/start`: the
 * request as JSON on stdin, the answer as JSON on stdout (runtime/team-op.ts).
 */
export const TEAM_OP = '__team';
