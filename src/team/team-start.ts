import { SynapseError } from '../errors.js';
import type { TerminalKind } from './panes.js';
import { spawnAgent, type SpawnDeps, type Spawned } from './spawn.js';
import { nextSpawnDepth } from './spawn-depth.js';
import { checkTeamNames, parseTeamSpec, type SpawnRequest } from './spawn-request.js';

export interface TeamStartOptions {
  /** Every member in a new pane; without it the first takes over the current terminal. */
  allNew: boolean;
  /** `--worktree [NAME]`: each member in its own worktree (`NAME-<profile>-<i>` when named). */
  worktree?: string | true | undefined;
  terminal?: TerminalKind | 'auto' | undefined;
  cliArgs?: string[] | undefined;
}

export interface TeamOutcome {
  started: Spawned[];
  failed: Array<{ spec: string; code: string; error: string }>;
  /** The member that takes over this terminal once the others run (the caller starts it). */
  takeover: SpawnRequest | null;
}

/** The member requests, parsed and checked (names unique) before anything starts. */
function teamRequests(specs: string[], opts: TeamStartOptions): SpawnRequest[] {
  if (specs.length === 0) throw new SynapseError('usage', 'name at least one member: synapse team start claude gemini:reviewer');
  const reqs = specs.map((spec, i): SpawnRequest => {
    const req = parseTeamSpec(spec);
    const worktree: string | true | undefined = opts.worktree === undefined ? undefined : opts.worktree === true ? true : `${opts.worktree}-${req.target}-${i}`;
    return {
      ...req,
      ...(worktree !== undefined ? { worktree } : {}),
      ...(opts.terminal ? { terminal: opts.terminal } : {}),
      ...(opts.cliArgs?.length ? { cliArgs: opts.cliArgs } : {}),
    };
  });
  checkTeamNames(reqs);
  return reqs;
}

/**
 * `synapse team start`: starts the members one after another (each claims its port before the
 * next looks for one); a member that fails is reported and the others go on.
 */
export async function startTeam(specs: string[], opts: TeamStartOptions, deps: SpawnDeps): Promise<TeamOutcome> {
  const reqs = teamRequests(specs, opts);
  // Too deep to spawn: the whole team is refused at once, not member by member.
  nextSpawnDepth(deps.env);
  const takeover = opts.allNew ? null : reqs[0]!;
  const outcome: TeamOutcome = { started: [], failed: [], takeover };
  for (const [i, req] of reqs.entries()) {
    if (req === takeover) continue;
    try {
      outcome.started.push(await spawnAgent(req, deps));
    } catch (err) {
      const e = err as Partial<SynapseError> & Error;
      outcome.failed.push({ spec: specs[i]!, code: e.code ?? 'internal', error: e.message });
    }
  }
  return outcome;
}
