import fs from 'node:fs';
import path from 'node:path';
import { Type, type Static } from 'typebox';
import { Value } from 'typebox/value';
import { projectSynapseDir, synapseHome, type Env } from '../config/paths.js';
import { SynapseError } from '../errors.js';
import { readDirNames, readJsonFile } from '../json-file.js';
import { findConversationId, findsConversationLater } from '../profiles/conversation.js';
import { findProfile } from '../profiles/index.js';
import type { RegistryEntry } from '../registry/entry.js';
import { sameProject } from '../registry/project.js';
import { compareCodeUnits } from '../text-order.js';

/**
 * A saved session (`synapse session save <name>`): every live agent of a project, as it would be
 * started again (profile, name, role, skill set, port, worktree, working directory) and the CLI's
 * conversation id, in `.synapse/sessions/<name>.json` (project) or `~/.synapse/sessions/` (user).
 */

export type SessionScope = 'project' | 'user';

/** A session name is its file name: letters, digits, `-` and `_`; no dots, no slashes. */
const SESSION_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

const WorktreeSchema = Type.Object({ name: Type.String(), path: Type.String(), branch: Type.String() });

const SavedMemberSchema = Type.Object({
  /** The agent id it had when saved (a restored agent gets a new one when its port is not free). */
  agent_id: Type.String(),
  profile: Type.String({ minLength: 1 }),
  name: Nullable(Type.String()),
  role: Nullable(Type.String()),
  skill_set: Nullable(Type.String()),
  port: Nullable(Type.Integer({ minimum: 1, maximum: 65535 })),
  worktree: Nullable(WorktreeSchema),
  working_dir: Type.String({ minLength: 1 }),
  /**
   * The CLI's conversation id (`--resume` goes on with it); null when unknown. It becomes a CLI
   * argument: never one that starts with `-` (a session file edited to pass a flag is refused).
   */
  session_id: Nullable(Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$' })),
});

const SessionSchema = Type.Object({
  name: Type.String({ pattern: SESSION_NAME.source }),
  saved_at: Type.String(),
  /** The directory it was saved from: worktrees are made again from here. */
  project_dir: Type.String({ minLength: 1 }),
  agents: Type.Array(SavedMemberSchema),
});

export type SavedMember = Static<typeof SavedMemberSchema>;
export type Session = Static<typeof SessionSchema>;

/** A session file as found: `session` is null when the file does not parse (`error` says why). */
export interface SessionFile {
  name: string;
  scope: SessionScope;
  file: string;
  session: Session | null;
  error: string | null;
}

function checkSessionName(name: string): string {
  if (!SESSION_NAME.test(name))
    throw new SynapseError(
      'invalid_input',
      `"${name}" is not a session name: use letters, digits, "-" and "_" (at most 64, no dots or slashes), e.g. sprint-3`,
    );
  return name;
}

function sessionDir(scope: SessionScope, cwd: string, env: Env): string {
  return path.join(scope === 'project' ? projectSynapseDir(cwd) : synapseHome(env), 'sessions');
}

function readSession(file: string, name: string, scope: SessionScope): SessionFile {
  try {
    const data = readJsonFile(file, 'session file');
    const first = Value.Errors(SessionSchema, data)[0];
    if (first) throw new SynapseError('corrupt_file', `${file}: ${first.instancePath || '(top level)'} ${first.message}`);
    const session = data as Session;
    if (session.name !== name) throw new SynapseError('corrupt_file', `${file}: name "${session.name}" differs from the file name`);
    return { name, scope, file, session, error: null };
  } catch (err) {
    return { name, scope, file, session: null, error: (err as Error).message };
  }
}

/** Every saved session, project scope first; a name in the project hides the user's. */
export function listSessions(cwd: string, env: Env, scopes: readonly SessionScope[] = ['project', 'user']): SessionFile[] {
  const out: SessionFile[] = [];
  const seen = new Set<string>();
  for (const scope of (['project', 'user'] as const).filter((s) => scopes.includes(s))) {
    const dir = sessionDir(scope, cwd, env);
    const names = readDirNames(dir)
      .flatMap((f) => /^(.+)\.json$/.exec(f)?.slice(1) ?? [])
      .filter((n) => SESSION_NAME.test(n))
      .sort();
    for (const name of names) {
      if (seen.has(name)) continue;
      seen.add(name);
      out.push(readSession(path.join(dir, `${name}.json`), name, scope));
    }
  }
  return out;
}

/** The session of that name (project first, unless `scope` says which); a file that does not parse is an error. */
export function getSession(name: string, cwd: string, env: Env, scope?: SessionScope): SessionFile & { session: Session } {
  checkSessionName(name);
  const found = listSessions(cwd, env, scope ? [scope] : undefined).find((s) => s.name === name);
  if (!found)
    throw new SynapseError('not_found', `no saved session "${name}"; \`synapse session list\` shows them, \`synapse session save ${name}\` makes one`);
  if (!found.session) throw new SynapseError('corrupt_file', found.error ?? `${found.file} does not parse`, { file: found.file });
  return found as SessionFile & { session: Session };
}

const str = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);

function worktreeOf(entry: RegistryEntry): SavedMember['worktree'] {
  const w = (entry as { worktree?: unknown }).worktree as Record<string, unknown> | null | undefined;
  if (!w || typeof w !== 'object') return null;
  const name = str(w.name);
  const p = str(w.path);
  const branch = str(w.branch);
  return name && p && branch ? { name, path: p, branch } : null;
}

/** A live agent as a session member: the conversation id from its entry, or from its CLI's session files. */
function memberOf(entry: RegistryEntry, env: Env): SavedMember {
  const extra = entry as unknown as Record<string, unknown>;
  const profile = findProfile(entry.agent_type)?.id;
  let sessionId = str(extra.session_id);
  if (!sessionId && profile && findsConversationLater(profile))
    sessionId = findConversationId(profile, { cwd: entry.working_dir, sinceMs: Date.parse(entry.registered_at) - 2000, env });
  return {
    agent_id: entry.agent_id,
    profile: profile ?? entry.agent_type,
    name: entry.name,
    role: entry.role,
    skill_set: str(extra.skill_set),
    port: entry.port,
    worktree: worktreeOf(entry),
    working_dir: entry.working_dir,
    session_id: sessionId,
  };
}

/**
 * Records the live agents of the project `cwd` belongs to (the git repository with its worktrees,
 * or the directory outside git) as session `name`, owner-only (0600). Saving a name again replaces it.
 */
export function saveSession(
  name: string,
  live: RegistryEntry[],
  opts: { cwd: string; env: Env; scope: SessionScope; now: Date },
): { file: string; session: Session; replaced: boolean } {
  checkSessionName(name);
  const members = live.filter((e) => sameProject(e.working_dir, opts.cwd));
  if (members.length === 0)
    throw new SynapseError('not_found', `no running agents in this project (${opts.cwd}) to save; \`synapse list\` shows the running ones`);
  const session: Session = {
    name,
    saved_at: opts.now.toISOString(),
    project_dir: opts.cwd,
    agents: members.sort((a, b) => compareCodeUnits(a.registered_at, b.registered_at)).map((e) => memberOf(e, opts.env)),
  };
  const dir = sessionDir(opts.scope, opts.cwd, opts.env);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = path.join(dir, `${name}.json`);
  const replaced = fs.existsSync(file);
  // Temp file and rename: a reader never sees half a session; owner-only (it holds working dirs and ids).
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify(session, null, 2)}\n`, { mode: 0o600 });
  fs.chmodSync(tmp, 0o600);
  fs.renameSync(tmp, file);
  return { file, session, replaced };
}

/** Removes the session file of that name (project first, unless `scope` says which); returns it. */
export function deleteSession(name: string, cwd: string, env: Env, scope?: SessionScope): SessionFile {
  checkSessionName(name);
  const found = listSessions(cwd, env, scope ? [scope] : undefined).find((s) => s.name === name);
  if (!found) throw new SynapseError('not_found', `no saved session "${name}"; \`synapse session list\` shows them`);
  fs.rmSync(found.file, { force: true });
  return found;
}
