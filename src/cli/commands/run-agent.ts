import fs from 'node:fs';
import path from 'node:path';
import { mergeArgs } from '../../profiles/args.js';
import { findConversationId, findsConversationLater, withConversationId } from '../../profiles/conversation.js';
import { getProfile, listProfiles, reservedRanges } from '../../profiles/index.js';
import { resolveCommand } from '../../runtime/terminal.js';
import { SynapseError } from '../../errors.js';
import { routeConsoleToLog } from '../console-to-log.js';
import { DETACHED_AGENT, detachedArgs, type DetachedAgent } from '../detached.js';
import { cliVersion } from '../installed-cli.js';
import type { CommandIo } from '../io.js';
import { ExitRequest } from '../exit.js';
import { settleProjectTrust } from '../project-trust.js';
import { instructionParts } from '../../config/instructions.js';
import { loadSettings, type Settings } from '../../config/settings.js';
import { projectTrustCheck } from '../../registry/project-trust.js';
import { renderTable } from '../table.js';
import { leaseRecord, type LeaseRecord, type LeaseTerms } from '../../runtime/lease.js';

/** The options of `synapse <profile>` / `synapse run` and `synapse start`, as commander gives them. */
export interface RunFlags {
  name?: string | undefined;
  role?: string | undefined;
  port?: number | undefined;
  host?: string | undefined;
  headless?: boolean | undefined;
  json?: boolean | undefined;
  autoApprove?: boolean | undefined;
  /** `--no-setup` makes it false: no name/role questions on a terminal. */
  setup?: boolean | undefined;
  /**
   * `--worktree [name]` (true without a name): start in `.synapse/worktrees/<name>`; a background
   * agent gets the worktree `synapse start` already made.
   */
  worktree?: string | boolean | AgentPlace | undefined;
  /** `--agent/-A <id|name>`: a saved agent's name, role, skill set and port (the flags win). */
  agent?: string | undefined;
  /** `--delegate-mode`: a manager that coordinates and does not edit (registry entry `delegate_mode: true`). */
  delegateMode?: boolean | undefined;
  /** A spawned helper's lease (`synapse spawn --keep-idle`): ends after this long READY with no task. */
  keepIdleMs?: number | undefined;
  /** A spawned helper's lease (`synapse spawn --keep-turns`): ends after this many answered tasks. */
  keepTurns?: number | undefined;
}

/** What a spawned agent's runner adds to `synapse <profile>` (pane-agent.ts, team-cli.ts). */
export interface RunExtras {
  /** More registry entry fields (`spawned_by_pid`, `pane`, `skill_set`). */
  extras?: Record<string, unknown>;
  /** Told once the agent is registered (its id), before the CLI's exit is awaited. */
  onStarted?: (agentId: string) => void | Promise<void>;
  /** Started by `synapse spawn`: no save prompt on exit, and no trust question (the spawner asked). */
  spawned?: boolean;
  /** The project's settings were settled already (`team start` asked before its members started). */
  trustSettled?: boolean;
}

/** A worktree made for an agent: where it lives and its branch (the registry entry's `worktree`). */
type AgentPlace = Extract<DetachedAgent['flags']['worktree'], object>;

/**
 * The worktree `--worktree` asks for, made now (or reused), and the directory the agent starts
 * in; null without the flag. Loaded only when asked: git and the team module cost nothing otherwise.
 */
async function worktreeFor(flags: RunFlags, profile: string, io: CommandIo): Promise<{ place: AgentPlace; cwd: string } | null> {
  if (flags.worktree === undefined || flags.worktree === false) return null;
  if (typeof flags.worktree === 'object') return { place: flags.worktree, cwd: io.cwd };
  const { createWorktree } = await import('../../team/worktree.js');
  const { liveAgents } = await import('../../registry/lookup.js');
  const name = typeof flags.worktree === 'string' ? flags.worktree : undefined;
  const made = createWorktree(io.cwd, name, flags.name ?? profile, liveAgents(io.env), io.env);
  io.err(`${made.created ? 'created' : 'reusing'} worktree ${made.path} (branch ${made.branch})\n`);
  return { place: { name: made.name, path: made.path, branch: made.branch }, cwd: made.cwd };
}

/** `--role TEXT` or `--role @file` (relative to the cwd). */
function readRole(role: string | undefined, io: CommandIo): string | undefined {
  if (role === undefined || !role.startsWith('@')) return role;
  const file = role.slice(1);
  try {
    return fs.readFileSync(path.resolve(io.cwd, file), 'utf8').trim();
  } catch (err) {
    throw new SynapseError('invalid_input', `cannot read role file ${file}: ${(err as Error).message}`);
  }
}

/** The CLI args: `--auto-approve` becomes the CLI's own flag (once, if the user passes it too), then the user's `-- args`. */
function cliArgsFor(profile: ReturnType<typeof getProfile>, cliArgs: string[], autoApprove: boolean | undefined): string[] {
  if (!autoApprove) return cliArgs;
  if (!profile.autoApproveArgs) throw new SynapseError('usage', `the ${profile.id} profile has no auto-approve flag`);
  return mergeArgs(profile, profile.autoApproveArgs, cliArgs).args;
}

export function checkInstalled(command: string, env: NodeJS.ProcessEnv): void {
  if (!resolveCommand(command, env.PATH)) {
    throw new SynapseError('command_not_found', `"${command}" is not on PATH. Install it first (or fix PATH), then run synapse again.`);
  }
}

/** `approvalMode: required` on a terminal: the prompt, once the agent id and port are known; `n` stops the start (exit 1). */
function approver(profile: string, settings: Settings, who: { name?: string | undefined; role?: string | undefined }, io: CommandIo) {
  return async ({ agentId, port }: { agentId: string; port: number }): Promise<'proceed' | 'skip'> => {
    const parts = instructionParts(profile, settings, io.cwd, io.env);
    const instruction = parts.map((p) => p.name ?? 'inline text').join(', ') || 'none';
    const answer = await (await import('../start-prompts.js')).askApproval({ agentId, port, ...who, instruction });
    if (answer === 'cancel') {
      io.err(`[Synapse] ${agentId} not started\n`);
      throw new ExitRequest(1);
    }
    return answer;
  };
}

/** Binding beyond loopback with auth off: said on the user's terminal before anything starts (the agent logs it too). */
async function warnIfExposed(flag: string | undefined, io: CommandIo): Promise<void> {
  const { bindHost, exposureWarning } = await import('../../runtime/bind-host.js');
  const warning = exposureWarning(bindHost(flag, io.env), io.env);
  if (warning) io.err(`synapse: ${warning}\n`);
}

/** `synapse <profile>`: runs until the CLI exits; returns its exit code. */
export async function runForeground(profileName: string, cliArgs: string[], given: RunFlags, callerIo: CommandIo, more: RunExtras = {}): Promise<number> {
  const profile = getProfile(profileName);
  const { flags, skillSet } = await withSavedAgent(profile.id, given, callerIo);
  const role = readRole(flags.role, callerIo);
  checkInstalled(profile.command, callerIo.env);
  const worktree = await worktreeFor(flags, profile.id, callerIo);
  // In a worktree, the agent (its settings, instructions, CLI) lives there, not where it was asked for.
  const placed = worktree ? { ...callerIo, cwd: worktree.cwd } : callerIo;
  const headless = flags.headless === true || !placed.isTerminal('stdin') || !placed.isTerminal('stdout');
  // The project's env and hooks: applied once trusted; asked about here only by a person starting it.
  const { io, withheld } = await settleProjectTrust(placed, !headless && !more.spawned && !more.trustSettled);
  // A setting that does not parse stops here, before a port is bound or the CLI spawned.
  (await import('../../runtime/agent-settings.js')).agentSettings(io.env);
  await warnIfExposed(flags.host, io);
  const settings = loadSettings(io.cwd, io.baseEnv ?? io.env, projectTrustCheck(io.baseEnv ?? io.env));
  // On a terminal: the name/role questions, unless --no-setup, --name or --role.
  const who =
    !headless && flags.setup !== false && flags.name === undefined && role === undefined
      ? await (await import('../start-prompts.js')).askNameRole()
      : { name: flags.name, role };
  const { startAgent } = await import('../../runtime/start-agent.js');
  // The CLI's conversation id, given to it where it takes one (`--session-id`), for `synapse session`.
  const conversation = withConversationId(profile.id, cliArgsFor(profile, cliArgs, flags.autoApprove));
  const extras: Record<string, unknown> = {
    ...more.extras,
    ...(withheld.length ? { settings_withheld: withheld } : {}),
    ...(skillSet ? { skill_set: skillSet } : {}),
    ...(worktree ? { worktree: worktree.place } : {}),
    ...(conversation.sessionId ? { session_id: conversation.sessionId } : {}),
    ...(flags.delegateMode ? { delegate_mode: true } : {}),
  };
  const lease = leaseOf(flags);
  if (lease) extras.lease = lease.record;
  const startedAt = Date.now();
  const agent = await startAgent({
    profile,
    headless,
    cliArgs: conversation.args,
    cwd: io.cwd,
    env: io.env,
    settings,
    ...(!headless && settings.approvalMode === 'required' ? { approve: approver(profile.id, settings, who, io) } : {}),
    ...(who.name ? { name: who.name } : {}),
    ...(who.role ? { role: who.role } : {}),
    ...(flags.port !== undefined ? { port: flags.port } : {}),
    ...(flags.host ? { host: flags.host } : {}),
    ...(Object.keys(extras).length > 0 || findsConversationLater(profile.id) ? { extras } : {}),
    ...(lease ? { lease } : {}),
  });
  if (!conversation.sessionId && findsConversationLater(profile.id))
    followConversationId(profile.id, extras, { cwd: io.cwd, sinceMs: startedAt - 2000, env: io.env });
  if (headless) io.out(`${agent.agentId} ready for HTTP on ${agent.endpoint}\n`);
  else routeConsoleToLog(agent.logger);
  await more.onStarted?.(agent.agentId);
  if (skillSet && !more.spawned) void (await import('./skill-set-apply.js')).applySkillSetQuietly(agent.agentId, skillSet, io, agent.logger);
  const code = await agent.exited;
  // The terminal is the user's again: the reason a CLI gave up at start-up stays in view (headless,
  // the same report is in the log on stdout).
  const exit = agent.cliExit();
  if (exit?.duringStartup && !headless) {
    // Loaded by now (startAgent composed the agent from it): no cost before the CLI is spawned.
    const { exitReport } = await import('../../runtime/agent.js');
    io.err(`synapse: ${profile.id} ${exitReport(exit).replace(/^cli /, '')}\n`);
  }
  // Quit by the person (not stopped by `synapse stop`/`kill`, which leave no CLI exit): offer to save it.
  if (exit && !exit.duringStartup && !headless && !more.spawned && who.name)
    await (await import('./save-agent-prompt.js')).offerToSave({ profile: profile.id, name: who.name, role: who.role, skillSet, port: flags.port }, io);
  return code;
}

/** The lease the spawner gave (`keepIdleMs`, `keepTurns`), with the registry entry's view of it; null without one. */
function leaseOf(flags: RunFlags): { terms: LeaseTerms; record: LeaseRecord } | null {
  const terms: LeaseTerms = {
    ...(flags.keepIdleMs !== undefined ? { idleMs: flags.keepIdleMs } : {}),
    ...(flags.keepTurns !== undefined ? { turns: flags.keepTurns } : {}),
  };
  return terms.idleMs === undefined && terms.turns === undefined ? null : { terms, record: leaseRecord(terms) };
}

/**
 * A CLI that takes no conversation id at start (Codex) writes one in its session files once it
 * runs: looked for every few seconds for a while, and put into the registry entry's extras (the
 * next heartbeat writes it) once found.
 */
function followConversationId(
  profile: ReturnType<typeof getProfile>['id'],
  extras: Record<string, unknown>,
  where: Parameters<typeof findConversationId>[1],
): void {
  const until = Date.now() + FOLLOW_CONVERSATION_MS;
  const look = () => {
    const id = findConversationId(profile, where);
    if (id) extras.session_id = id;
    else if (Date.now() < until) setTimeout(look, 3000).unref();
  };
  setTimeout(look, 3000).unref();
}

/** How long a CLI's session files are watched for its conversation id. */
const FOLLOW_CONVERSATION_MS = 10 * 60_000;

/** `--agent/-A`: the saved agent's fields under the flags; its profile must be the one run. */
async function withSavedAgent(profile: string, flags: RunFlags, io: CommandIo): Promise<{ flags: RunFlags; skillSet: string | undefined }> {
  if (!flags.agent) return { flags, skillSet: undefined };
  const { getSavedAgent } = await import('../../team/saved-agents.js');
  const saved = getSavedAgent(flags.agent, io.cwd, io.env);
  if (getProfile(saved.profile).id !== profile)
    throw new SynapseError(
      'usage',
      `saved agent ${saved.id} is a ${saved.profile} agent: run \`synapse ${saved.profile} --agent ${saved.id}\` (or \`synapse spawn ${saved.id}\`)`,
    );
  return {
    flags: {
      ...flags,
      name: flags.name ?? saved.name,
      role: flags.role ?? saved.role ?? undefined,
      port: flags.port ?? saved.port ?? undefined,
    },
    skillSet: saved.skill_set ?? undefined,
  };
}

/** `synapse start`: validates here (so errors reach this terminal), then detaches. */
export async function startBackground(profileName: string, cliArgs: string[], given: RunFlags, callerIo: CommandIo): Promise<void> {
  const profile = getProfile(profileName);
  const { flags, skillSet } = await withSavedAgent(profile.id, given, callerIo);
  const role = readRole(flags.role, callerIo);
  checkInstalled(profile.command, callerIo.env);
  if (flags.autoApprove) cliArgsFor(profile, [], true);
  // Started from inside an agent (its CLI runs `synapse start`): one level deeper, within the depth guard.
  const depth = callerIo.env.SYNAPSE_AGENT_ID || callerIo.env.SYNAPSE_SPAWN_DEPTH ? await spawnDepthMarks(callerIo) : null;
  // A person starting it from a terminal answers the trust question here; the agent itself cannot ask.
  const { io } = await settleProjectTrust(callerIo, callerIo.isTerminal('stdin') && callerIo.isTerminal('stderr'));
  (await import('../../runtime/agent-settings.js')).agentSettings(io.env);
  const worktree = await worktreeFor(flags, profile.id, io);
  await warnIfExposed(flags.host, io);
  const { launchBackground } = await import('../../runtime/launch.js');
  const agent = {
    profile: profile.id,
    cliArgs,
    flags: {
      name: flags.name,
      role,
      port: flags.port,
      host: flags.host,
      autoApprove: flags.autoApprove,
      worktree: worktree?.place,
      ...(flags.delegateMode ? { delegateMode: true } : {}),
    },
    ...(skillSet || depth ? { extras: { ...depth?.extras, ...(skillSet ? { skill_set: skillSet } : {}) } } : {}),
  };
  const env = depth ? { ...io.env, ...depth.env } : io.env;
  const { entry, logFile, stillStarting } = await launchBackground({ synapseArgs: detachedArgs(agent), env, cwd: worktree?.cwd ?? io.cwd });
  if (stillStarting) io.err(`${entry.agent_id}: ${profile.id} has not shown its prompt yet; \`synapse logs ${entry.agent_id} --screen\` shows what it shows\n`);
  if (flags.json) io.out(`${JSON.stringify(entry, null, 2)}\n`);
  else io.out(`started ${entry.agent_id}${entry.name ? ` (${entry.name})` : ''} on ${entry.endpoint}, pid ${entry.pid}\nlog: ${logFile}\n`);
  if (skillSet) await (await import('./skill-set-apply.js')).applySkillSetQuietly(entry.agent_id, skillSet, io, null);
}

/** The depth guard for `synapse start` run by an agent (team/spawn-depth.ts, loaded only then). */
async function spawnDepthMarks(io: CommandIo): Promise<{ env: Record<string, string>; extras: Record<string, unknown> }> {
  const { depthMarks, nextSpawnDepth } = await import('../../team/spawn-depth.js');
  return depthMarks(nextSpawnDepth(io.env));
}

function parseDetached(json: string): DetachedAgent {
  let v: Partial<DetachedAgent> | null;
  try {
    v = JSON.parse(json) as Partial<DetachedAgent> | null;
  } catch {
    v = null;
  }
  if (!v || typeof v.profile !== 'string' || !Array.isArray(v.cliArgs) || typeof v.flags !== 'object' || v.flags === null)
    throw new SynapseError('usage', `${DETACHED_AGENT} takes what \`synapse start\` writes; run \`synapse start <profile>\` instead`);
  return v as DetachedAgent;
}

/** A background agent (`synapse start`): runs exactly as `synapse <profile> --headless`, then exits with the CLI's code. */
export async function runDetached(json: string, io: CommandIo): Promise<void> {
  const agent = parseDetached(json);
  const code = await runForeground(agent.profile, agent.cliArgs, { ...agent.flags, headless: true }, io, {
    ...(agent.extras ? { extras: agent.extras, spawned: true } : {}),
  });
  // As the `run` command: the PTY and server handles are closed, but native handles may linger.
  process.stdout.write('', () => process.exit(code));
  await new Promise(() => undefined);
}

/** `synapse profiles`: every reserved range, the profile on it, whether its CLI is installed (and which version). */
export async function listProfilesCommand(flags: { json?: boolean }, io: CommandIo): Promise<void> {
  const shipped = listProfiles();
  const rows = await Promise.all(
    reservedRanges().map(async (r) => {
      const p = shipped.find((s) => s.id === r.id);
      const bin = p && p.id !== 'echo' ? resolveCommand(p.command, io.env.PATH) : null;
      const builtIn = p?.id === 'echo';
      return {
        id: r.id,
        aliases: p?.aliases ?? [],
        ports: `${r.first}-${r.last}`,
        command: p ? (builtIn ? 'built-in' : p.command) : null,
        available: r.available,
        installed: builtIn || bin !== null,
        version: builtIn ? null : bin ? await cliVersion(bin, 5000) : null,
        verified_live: p ? (p.verified ?? 'live') === 'live' : false,
      };
    }),
  );
  if (flags.json) {
    io.out(`${JSON.stringify(rows, null, 2)}\n`);
    return;
  }
  const status = (r: (typeof rows)[number]) =>
    !r.available ? 'range reserved' : r.command === 'built-in' ? 'built-in' : r.installed ? `installed${r.version ? ` (${r.version})` : ''}` : 'not installed';
  io.out(
    `${renderTable(
      ['PROFILE', 'ALIASES', 'PORTS', 'COMMAND', 'STATUS', 'RULES'],
      rows.map((r) => [
        r.id,
        r.aliases.join(',') || '-',
        r.ports,
        r.command ?? '-',
        status(r),
        !r.available ? '-' : r.verified_live ? 'verified live' : 'not verified live',
      ]),
    )}\n`,
  );
}
