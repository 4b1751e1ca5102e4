import type { Env } from '../config/paths.js';
import { SynapseError } from '../errors.js';
import { findProfile, profileNames } from '../profiles/index.js';
import { liveAgents } from '../registry/lookup.js';
import { getSkillSet } from '../skills/sets.js';
import type { LeaseTerms } from './lease.js';
import type { TerminalKind } from './panes.js';
import { findSavedAgent } from './saved-agents.js';

/** One agent to spawn: what `synapse spawn`, a `team start` spec and `POST /spawn` all say. */
export interface SpawnRequest {
  /** A profile (`claude`, `echo` …) or a saved agent's id or name. */
  target: string;
  name?: string | undefined;
  role?: string | undefined;
  skillSet?: string | undefined;
  port?: number | undefined;
  /** `--worktree [NAME]`, forwarded to the agent's own start (the worktree feature). */
  worktree?: string | true | undefined;
  terminal?: TerminalKind | 'auto' | undefined;
  cliArgs?: string[] | undefined;
  autoApprove?: boolean | undefined;
  /**
   * How long its CLI may take to come up before the spawn gives up on it (`session restore
   * --resume`: a resume that hangs is started afresh); default 45 s in a pane, 30 s in the
   * background (where the spawn then returns with `still_starting`).
   */
  readyWithinMs?: number | undefined;
  /** The helper's lease (`synapse spawn --keep-idle/--keep-turns`, `POST /spawn`); none for `team start` members. */
  lease?: LeaseTerms | undefined;
}

/** The request with the saved agent (if the target is one) filled in; the request's own options win. */
export interface ResolvedSpawn {
  profile: string;
  name: string | undefined;
  role: string | undefined;
  skillSet: string | undefined;
  port: number | undefined;
  /** The saved agent it came from, if any. */
  savedId: string | null;
}

/** Profile or saved agent; checks the skill set exists and the name is free before anything starts. */
export function resolveSpawn(req: SpawnRequest, cwd: string, env: Env): ResolvedSpawn {
  const profile = findProfile(req.target);
  const saved = profile ? null : findSavedAgent(req.target, cwd, env);
  if (!profile && !saved)
    throw new SynapseError(
      'unknown_profile',
      `"${req.target}" is neither a profile (${profileNames()}) nor a saved agent; \`synapse agents list\` shows the saved ones`,
    );
  const out: ResolvedSpawn = {
    profile: profile?.id ?? saved!.profile,
    name: req.name ?? saved?.name,
    role: req.role ?? saved?.role ?? undefined,
    skillSet: req.skillSet ?? saved?.skill_set ?? undefined,
    port: req.port ?? saved?.port ?? undefined,
    savedId: saved?.id ?? null,
  };
  if (!findProfile(out.profile)) throw new SynapseError('unknown_profile', `saved agent ${saved!.id} names profile "${out.profile}", which does not exist`);
  if (out.skillSet) getSkillSet(out.skillSet, env, cwd);
  if (out.name) {
    const taken = liveAgents(env).find((e) => e.name === out.name);
    if (taken) throw new SynapseError('conflict', `the name "${out.name}" is taken by ${taken.agent_id}; choose another --name`);
  }
  return out;
}

/**
 * A `team start` spec, `profile[:name[:role[:skill_set[:port]]]]`; empty fields are unset
 * (`gemini::reviewer` has a role and no name).
 */
export function parseTeamSpec(spec: string): SpawnRequest {
  const [target = '', name, role, skillSet, port] = spec.split(':');
  if (!target) throw new SynapseError('usage', `team spec "${spec}" names no profile: profile[:name[:role[:skill_set[:port]]]]`);
  let portNumber: number | undefined;
  if (port) {
    portNumber = Number(port);
    if (!Number.isInteger(portNumber) || portNumber < 1 || portNumber > 65535)
      throw new SynapseError('usage', `team spec "${spec}": port "${port}" is not a port (1-65535)`);
  }
  return {
    target,
    ...(name ? { name } : {}),
    ...(role ? { role } : {}),
    ...(skillSet ? { skillSet } : {}),
    ...(portNumber !== undefined ? { port: portNumber } : {}),
  };
}

/** Two members of one team may not share a name. */
export function checkTeamNames(specs: SpawnRequest[]): void {
  const seen = new Set<string>();
  for (const s of specs) {
    if (!s.name) continue;
    if (seen.has(s.name)) throw new SynapseError('usage', `two team members are named "${s.name}"`);
    seen.add(s.name);
  }
}
