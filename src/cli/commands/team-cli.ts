import { SynapseError } from '../../errors.js';
import { findAgent } from '../../registry/lookup.js';
import { paneTerminal } from '../../team/pane-terminal.js';
import { paneOfEntry } from '../../team/panes.js';
import { spawnAgent, spawningParent, type SpawnDeps, type Spawned } from '../../team/spawn.js';
import type { SpawnRequest } from '../../team/spawn-request.js';
import { startTeam, type TeamStartOptions } from '../../team/team-start.js';
import { leaseTerms } from '../../team/lease.js';
import { loadSettings } from '../../config/settings.js';
import { detachedArgs, PANE_AGENT } from '../detached.js';
import { ExitRequest } from '../exit.js';
import { printJson, println, type CommandIo } from '../io.js';
import { settleProjectTrust } from '../project-trust.js';
import { applySkillSet } from './skill-set-apply.js';
import { deferExtraCaCertsArgv } from '../../extra-ca-certs.js';

/** How this process spawns: `synapse start`'s launcher, `synapse __pane <file>` in a pane, `skills apply`. */
export async function spawnDeps(io: CommandIo): Promise<SpawnDeps> {
  const { AGENT_NODE_FLAGS, launchBackground, synapseBin } = await import('../../runtime/launch.js');
  const { checkInstalled } = await import('./run-agent.js');
  const { getProfile } = await import('../../profiles/index.js');
  return {
    env: io.env,
    cwd: io.cwd,
    parentPid: spawningParent(io.env, io.parentPid),
    background: (spec, env, upWithinMs) => {
      checkInstalled(getProfile(spec.profile).command, env);
      return launchBackground({ synapseArgs: detachedArgs(spec), env, cwd: io.cwd, ...(upWithinMs !== undefined ? { upWithinMs } : {}) });
    },
    paneArgv: (file) => [...deferExtraCaCertsArgv(io.env), process.execPath, ...AGENT_NODE_FLAGS, synapseBin, PANE_AGENT, file],
    applySkillSet: (agentId, set) => applySkillSet(agentId, set, io),
  };
}

/** A person can answer a question here: stdin and stderr are terminals. */
const askable = (io: CommandIo) => io.isTerminal('stdin') && io.isTerminal('stderr');

function spawnedLine(s: Spawned): string {
  const where = s.pane ? `${s.terminal} pane ${s.pane.id}` : 'the background';
  return `spawned ${s.agent_id}${s.name ? ` (${s.name})` : ''} in ${where} on ${s.endpoint}, pid ${s.pid}${s.still_starting ? ' (its CLI is still starting)' : ''}\n  ${s.attach}`;
}

export interface SpawnFlags {
  name?: string;
  role?: string;
  skillSet?: string;
  port?: number;
  worktree?: string | true;
  terminal?: string;
  autoApprove?: boolean;
  /** `--keep-idle <duration>`: the helper ends after this long READY with no task. */
  keepIdle?: string;
  /** `--keep-turns <n>`: the helper ends after n answered tasks. */
  keepTurns?: string;
  json?: boolean;
}

const TERMINALS = ['auto', 'tmux', 'zellij', 'background'] as const;

function terminalOf(value: string | undefined): SpawnRequest['terminal'] {
  if (value === undefined) return 'auto';
  if (!(TERMINALS as readonly string[]).includes(value)) throw new SynapseError('usage', `--terminal is one of ${TERMINALS.join(', ')}, got "${value}"`);
  return value as SpawnRequest['terminal'];
}

/** `synapse spawn <profile|saved-agent>`: one agent in a new pane (or the background), ready when this returns. */
export async function spawnCommand(target: string, cliArgs: string[], flags: SpawnFlags, callerIo: CommandIo): Promise<void> {
  // The project's env and hooks: asked about here when a person runs it on a terminal (the agent cannot ask).
  const { io } = await settleProjectTrust(callerIo, askable(callerIo));
  const spawned = await spawnAgent(
    {
      target,
      name: flags.name,
      role: flags.role,
      skillSet: flags.skillSet,
      port: flags.port,
      worktree: flags.worktree,
      terminal: terminalOf(flags.terminal),
      cliArgs,
      autoApprove: flags.autoApprove,
      lease: leaseTerms({ keepIdle: flags.keepIdle, keepTurns: flags.keepTurns }, loadSettings(io.cwd, io.env).spawn),
    },
    await spawnDeps(io),
  );
  if (flags.json) printJson(io, spawned);
  else println(io, spawnedLine(spawned));
}

/** `synapse team start <spec>…`: the members in new panes; the first takes over this terminal unless `--all-new`. */
export async function teamStartCommand(
  specs: string[],
  cliArgs: string[],
  flags: { allNew?: boolean; worktree?: string | true; terminal?: string; json?: boolean },
  callerIo: CommandIo,
): Promise<void> {
  const { io } = await settleProjectTrust(callerIo, askable(callerIo));
  const opts: TeamStartOptions = { allNew: flags.allNew === true, worktree: flags.worktree, terminal: terminalOf(flags.terminal), cliArgs };
  const outcome = await startTeam(specs, opts, await spawnDeps(io));
  if (flags.json) printJson(io, { started: outcome.started, failed: outcome.failed, takeover: outcome.takeover?.target ?? null });
  else {
    for (const s of outcome.started) println(io, spawnedLine(s));
    for (const f of outcome.failed) io.err(`failed ${f.spec}: ${f.error}\n`);
    if (outcome.failed.length && outcome.started.length)
      io.err(`still running: ${outcome.started.map((s) => s.name ?? s.agent_id).join(', ')} (synapse kill <name> stops one)\n`);
  }
  if (outcome.takeover) {
    const t = outcome.takeover;
    if (!flags.json) println(io, `handing this terminal to ${t.name ?? t.target}`);
    const { runForeground } = await import('./run-agent.js');
    const profileOrSaved = await takeoverFlags(t, io);
    const code = await runForeground(profileOrSaved.profile, t.cliArgs ?? [], profileOrSaved.flags, io, { trustSettled: true });
    throw new ExitRequest(outcome.failed.length ? Math.max(code, 1) : code);
  }
  if (outcome.failed.length) throw new ExitRequest(1);
}

/** The take-over member as `synapse <profile>` options: a saved agent becomes `--agent`. */
async function takeoverFlags(t: SpawnRequest, io: CommandIo) {
  const { findProfile } = await import('../../profiles/index.js');
  const { getSavedAgent } = await import('../../team/saved-agents.js');
  const profile = findProfile(t.target)?.id ?? getSavedAgent(t.target, io.cwd, io.env).profile;
  return {
    profile,
    flags: {
      ...(findProfile(t.target) ? {} : { agent: t.target }),
      ...(t.name ? { name: t.name } : {}),
      ...(t.role ? { role: t.role } : {}),
      ...(t.port !== undefined ? { port: t.port } : {}),
      setup: false,
    },
  };
}

/** `synapse jump <target>`: focuses the pane of an agent started by `synapse spawn`. */
export async function jumpCommand(target: string, io: CommandIo): Promise<void> {
  const { entry } = findAgent(target, io.env);
  const pane = paneOfEntry(entry);
  if (!pane) {
    const hint = entry.log_file ? `; \`synapse logs ${entry.agent_id} -f\` follows its log` : '';
    throw new SynapseError('not_found', `${entry.agent_id} has no pane to jump to (it was not spawned into tmux or zellij)${hint}`);
  }
  (await paneTerminal(pane.kind, io.env)).focus(pane);
  println(io, `jumped to ${entry.agent_id} (${pane.kind} pane ${pane.id})`);
}

/** Closes the pane of a spawned agent once it has stopped (`synapse kill`); quiet when it is gone already. */
export async function closePaneOf(entry: object, io: CommandIo): Promise<string | null> {
  const pane = paneOfEntry(entry);
  if (!pane) return null;
  try {
    (await paneTerminal(pane.kind, io.env)).close(pane);
    return `closed its ${pane.kind} pane ${pane.id}`;
  } catch (err) {
    return `its ${pane.kind} pane ${pane.id} could not be closed: ${(err as Error).message}`;
  }
}

interface TeamOpBody {
  op: 'spawn' | 'team';
  request: {
    profile?: string;
    agents?: string[];
    name?: string;
    role?: string;
    skill_set?: string;
    port?: number;
    worktree?: string | boolean;
    terminal?: SpawnRequest['terminal'];
    cli_args?: string[];
    auto_approve?: boolean;
    keep_idle?: string | number;
    keep_turns?: number;
  };
}

const worktreeOf = (w: string | boolean | undefined): string | true | undefined => (w === true ? true : typeof w === 'string' ? w : undefined);

/**
 * `synapse __team` (runtime/team-op.ts): `POST /spawn` and `POST /team/start` of an agent, the
 * request (checked by the route's schema) on stdin, `{ok, result}` or `{ok: false, error}` on stdout.
 */
export async function runTeamOpEntry(io: CommandIo): Promise<void> {
  try {
    const { op, request: r } = JSON.parse(await io.readStdin()) as TeamOpBody;
    const deps = await spawnDeps(io);
    const common = { worktree: worktreeOf(r.worktree), terminal: r.terminal ?? 'auto', cliArgs: r.cli_args ?? [] };
    const result =
      op === 'spawn'
        ? await spawnAgent(
            {
              target: r.profile ?? '',
              name: r.name,
              role: r.role,
              skillSet: r.skill_set,
              port: r.port,
              autoApprove: r.auto_approve,
              lease: leaseTerms({ keepIdle: r.keep_idle, keepTurns: r.keep_turns }, loadSettings(io.cwd, io.env).spawn),
              ...common,
            },
            deps,
          )
        : await startTeam(r.agents ?? [], { allNew: true, ...common }, deps).then(({ started, failed }) => ({ started, failed }));
    printJson(io, { ok: true, result });
  } catch (err) {
    printJson(io, { ok: false, error: { code: err instanceof SynapseError ? err.code : 'internal', message: (err as Error).message } });
  }
}
