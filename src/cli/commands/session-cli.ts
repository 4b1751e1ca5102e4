import { envSetting } from '../../config/env-setting.js';
import { SynapseError } from '../../errors.js';
import { liveAgents } from '../../registry/lookup.js';
import { restoreSession, type RestoredMember } from '../../team/session-restore.js';
import { deleteSession, getSession, listSessions, saveSession, type SavedMember, type Session, type SessionScope } from '../../team/sessions.js';
import { spawnAgent } from '../../team/spawn.js';
import type { SpawnRequest } from '../../team/spawn-request.js';
import { ExitRequest } from '../exit.js';
import { printJson, println, type CommandIo } from '../io.js';
import { preview, renderTable } from '../table.js';

const scopeOf = (flags: { user?: boolean }): SessionScope | undefined => (flags.user ? 'user' : undefined);

function memberLine(m: SavedMember): string {
  const where = m.worktree ? `worktree ${m.worktree.name} (${m.worktree.branch})` : m.working_dir;
  return [
    `${m.name ?? m.agent_id} (${m.profile})`,
    m.role ? `role ${preview(m.role, 40)}` : null,
    m.skill_set ? `skill set ${m.skill_set}` : null,
    m.port !== null ? `port ${m.port}` : null,
    where,
    `conversation ${m.session_id ?? '(latest)'}`,
  ]
    .filter(Boolean)
    .join(', ');
}

/** `synapse session save <name> [--user]`. */
export function saveSessionCommand(name: string, flags: { user?: boolean; json?: boolean }, io: CommandIo): void {
  const saved = saveSession(name, liveAgents(io.env), { cwd: io.cwd, env: io.env, scope: flags.user ? 'user' : 'project', now: new Date() });
  if (flags.json) return printJson(io, { file: saved.file, replaced: saved.replaced, ...saved.session });
  println(io, `${saved.replaced ? 'replaced' : 'saved'} session ${name} (${saved.session.agents.length} agent(s)) in ${saved.file}`);
  for (const m of saved.session.agents) println(io, `  ${memberLine(m)}`);
}

/** `synapse session list [--user]`. */
export function listSessionsCommand(flags: { user?: boolean; json?: boolean }, io: CommandIo): void {
  const all = listSessions(io.cwd, io.env, flags.user ? ['user'] : undefined);
  if (flags.json)
    return printJson(
      io,
      all.map((s) => ({
        name: s.name,
        scope: s.scope,
        file: s.file,
        saved_at: s.session?.saved_at ?? null,
        agents: s.session?.agents.length ?? null,
        error: s.error,
      })),
    );
  if (all.length === 0) return println(io, 'No saved sessions. Save the running agents with `synapse session save <name>`.');
  println(
    io,
    renderTable(
      ['NAME', 'SCOPE', 'AGENTS', 'SAVED', 'MEMBERS'],
      all.map((s) =>
        s.session
          ? [s.name, s.scope, String(s.session.agents.length), s.session.saved_at, preview(s.session.agents.map((a) => a.name ?? a.profile).join(', '), 48)]
          : [s.name, s.scope, '-', '-', `unreadable: ${preview(s.error, 48)}`],
      ),
    ),
  );
}

/** `synapse session show <name>`. */
export function showSessionCommand(name: string, flags: { user?: boolean; json?: boolean }, io: CommandIo): void {
  const found = getSession(name, io.cwd, io.env, scopeOf(flags));
  if (flags.json) return printJson(io, { scope: found.scope, file: found.file, ...found.session });
  println(io, `session ${name} (${found.scope}, ${found.file}), saved ${found.session.saved_at} from ${found.session.project_dir}`);
  for (const m of found.session.agents) println(io, `  ${memberLine(m)}`);
}

/** `synapse session delete <name>`. */
export function deleteSessionCommand(name: string, flags: { user?: boolean; json?: boolean }, io: CommandIo): void {
  const gone = deleteSession(name, io.cwd, io.env, scopeOf(flags));
  if (flags.json) printJson(io, { name: gone.name, scope: gone.scope, file: gone.file });
  else println(io, `deleted session ${name} (${gone.scope}, ${gone.file})`);
}

export interface RestoreFlags {
  resume?: boolean;
  terminal?: string;
  user?: boolean;
  json?: boolean;
}

const TERMINALS = ['auto', 'tmux', 'zellij', 'background'] as const;

function restoredLine(r: RestoredMember & { agent: NonNullable<RestoredMember['agent']> }): string {
  const who = r.name ?? r.profile;
  const a = r.agent;
  const where = a.pane ? `${a.terminal} pane ${a.pane.id}` : 'the background';
  const how = r.resumed ? ', conversation resumed' : r.fell_back ? ', started fresh (the resume did not come up)' : '';
  return `restored ${a.agent_id} (${who}) in ${where} on ${a.endpoint}${how}\n  ${a.attach}`;
}

/** `synapse session restore <name> [--resume]`: every member started as `synapse spawn` would. */
export async function restoreSessionCommand(name: string, flags: RestoreFlags, io: CommandIo): Promise<void> {
  const terminal = flags.terminal ?? 'auto';
  if (!(TERMINALS as readonly string[]).includes(terminal)) throw new SynapseError('usage', `--terminal is one of ${TERMINALS.join(', ')}, got "${terminal}"`);
  const found = getSession(name, io.cwd, io.env, scopeOf(flags));
  const session: Session = found.session;
  const { spawnDeps } = await import('./team-cli.js');
  const { killCommand } = await import('./lifecycle.js');
  const quiet: CommandIo = { ...io, out: () => undefined };
  const results = await restoreSession(
    session,
    { resume: flags.resume === true, terminal: terminal as SpawnRequest['terminal'], resumeTimeoutMs: envSetting(io.env, 'SYNAPSE_RESUME_TIMEOUT') * 1000 },
    {
      spawn: async (req, cwd) => spawnAgent(req, await spawnDeps({ ...io, cwd })),
      stop: (agentId) => killCommand(agentId, { timeout: '5' }, quiet),
      say: (line) => io.err(`${line}\n`),
    },
  );
  const failed = results.filter((r) => !r.agent);
  if (flags.json) printJson(io, { session: name, resume: flags.resume === true, agents: results });
  // A failed member was said as it failed (`not restored: …`); the started ones are listed here.
  else for (const r of results) if (r.agent) println(io, restoredLine({ ...r, agent: r.agent }));
  if (failed.length) throw new ExitRequest(1);
}
