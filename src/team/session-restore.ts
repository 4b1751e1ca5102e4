import fs from 'node:fs';
import { isSynapseError, SynapseError } from '../errors.js';
import { resumeArgs } from '../profiles/conversation.js';
import { findProfile } from '../profiles/index.js';
import type { SavedMember, Session } from './sessions.js';
import type { SpawnRequest } from './spawn-request.js';
import type { Spawned } from './spawn.js';

/** What restoring needs from its caller: `synapse spawn` from a directory, `synapse kill`, the console. */
export interface RestoreDeps {
  spawn(req: SpawnRequest, cwd: string): Promise<Spawned>;
  /** Stops an agent (and closes its pane), waiting until it is gone. */
  stop(agentId: string): Promise<void>;
  /** One progress line for the person (stderr). */
  say(line: string): void;
}

export interface RestoreOptions {
  resume: boolean;
  terminal: SpawnRequest['terminal'];
  /** How long a resumed CLI may take to reach READY before it is started fresh (`SYNAPSE_RESUME_TIMEOUT`). */
  resumeTimeoutMs: number;
}

/** One member's outcome. */
export interface RestoredMember {
  name: string | null;
  profile: string;
  /** Started: the new agent; null when it failed. */
  agent: Spawned | null;
  /** Started on its earlier conversation. */
  resumed: boolean;
  /** `--resume` was asked and did not come up in time (or its CLI gave up): started fresh instead. */
  fell_back: boolean;
  error: { code: string; message: string } | null;
}

const label = (m: SavedMember) => `${m.name ?? m.agent_id} (${m.profile})`;

/** Where the member starts: a worktree member from the project (its worktree is reused), any other in its working dir. */
function startDir(m: SavedMember, session: Session): string {
  const dir = m.worktree ? session.project_dir : m.working_dir;
  if (!fs.existsSync(dir)) throw new SynapseError('not_found', `${label(m)}: its directory ${dir} is gone`);
  return dir;
}

function requestOf(m: SavedMember, opts: RestoreOptions, cliArgs: string[]): SpawnRequest {
  return {
    target: m.profile,
    ...(m.name ? { name: m.name } : {}),
    ...(m.role ? { role: m.role } : {}),
    ...(m.skill_set ? { skillSet: m.skill_set } : {}),
    ...(m.port !== null ? { port: m.port } : {}),
    ...(m.worktree ? { worktree: m.worktree.name } : {}),
    terminal: opts.terminal,
    cliArgs,
  };
}

/** The agent id of a start that did not come up in time and still runs (a pane agent's error names it). */
function stuckAgent(err: unknown): string | null {
  if (!isSynapseError(err) || err.code !== 'agent_not_ready') return null;
  const id = err.details?.agent_id;
  return typeof id === 'string' ? id : null;
}

/**
 * `--resume`: the CLI started on its saved conversation; if it has not reached READY within the
 * timeout, it is stopped and started fresh, and the console says so. A CLI that gives up on the
 * resume (no such conversation) is started fresh too.
 */
async function resumeMember(m: SavedMember, session: Session, opts: RestoreOptions, deps: RestoreDeps): Promise<RestoredMember> {
  const profile = findProfile(m.profile);
  if (!profile) throw new SynapseError('unknown_profile', `${label(m)}: no profile "${m.profile}"`);
  const cwd = startDir(m, session);
  const seconds = opts.resumeTimeoutMs / 1000;
  let why: string;
  try {
    const spawned = await deps.spawn({ ...requestOf(m, opts, resumeArgs(profile.id, m.session_id)), readyWithinMs: opts.resumeTimeoutMs }, cwd);
    if (!spawned.still_starting) return { name: m.name, profile: m.profile, agent: spawned, resumed: true, fell_back: false, error: null };
    await deps.stop(spawned.agent_id);
    why = `did not reach READY within ${seconds} s`;
  } catch (err) {
    const stuck = stuckAgent(err);
    if (stuck) {
      await deps.stop(stuck);
      why = `did not reach READY within ${seconds} s`;
    } else if (isSynapseError(err) && err.code === 'cli_exited') {
      why = `could not resume (${err.message.split('\n')[0]})`;
    } else throw err;
  }
  deps.say(`${label(m)}: resuming conversation ${m.session_id ?? '(latest)'} ${why}; starting it fresh`);
  const fresh = await deps.spawn(requestOf(m, opts, []), cwd);
  return { name: m.name, profile: m.profile, agent: fresh, resumed: false, fell_back: true, error: null };
}

/** Starts every member of the session as `synapse spawn` would; a member that fails is reported, the others go on. */
export async function restoreSession(session: Session, opts: RestoreOptions, deps: RestoreDeps): Promise<RestoredMember[]> {
  const out: RestoredMember[] = [];
  for (const m of session.agents) {
    try {
      if (opts.resume) out.push(await resumeMember(m, session, opts, deps));
      else {
        const agent = await deps.spawn(requestOf(m, opts, []), startDir(m, session));
        out.push({ name: m.name, profile: m.profile, agent, resumed: false, fell_back: false, error: null });
      }
    } catch (err) {
      const error = { code: isSynapseError(err) ? err.code : 'internal', message: (err as Error).message };
      deps.say(`${label(m)}: not restored: ${error.message}`);
      out.push({ name: m.name, profile: m.profile, agent: null, resumed: false, fell_back: false, error });
    }
  }
  return out;
}
