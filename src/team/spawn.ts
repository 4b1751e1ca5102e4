import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Env } from '../config/paths.js';
import { SynapseError, type ErrorCode } from '../errors.js';
import type { RegistryEntry } from '../registry/entry.js';
import { openRegistry } from '../registry/lookup.js';
import { paneTerminal } from './pane-terminal.js';
import { chooseTerminal, paneOfEntry, type PaneKind, type PaneRef, type TerminalKind } from './panes.js';
import { resolveSpawn, type SpawnRequest } from './spawn-request.js';
import { depthMarks, nextSpawnDepth } from './spawn-depth.js';

/** How a spawned agent is started: the options of `synapse start` (cli/detached.ts) plus entry extras. */
interface LaunchSpec {
  profile: string;
  cliArgs: string[];
  flags: {
    name?: string | undefined;
    role?: string | undefined;
    port?: number | undefined;
    autoApprove?: boolean | undefined;
    worktree?: string | true | undefined;
    /** The lease (team/lease.ts): ends after this long READY with no task. */
    keepIdleMs?: number | undefined;
    /** The lease: ends after this many answered tasks. */
    keepTurns?: number | undefined;
  };
  /** Written into the agent's registry entry (`spawned_by_pid`, `skill_set`, `spawn_depth`); the original ignores them. */
  extras: Record<string, unknown>;
}

/** What a pane agent reads from its spec file (cli/commands/pane-agent.ts). */
export interface PaneSpec {
  agent: LaunchSpec;
  env: Env;
  kind: PaneKind;
  /** Where the pane agent reports `{agent_id}` once registered, or `{error}`. */
  result: string;
}

/** What the caller provides: how to start a background agent and the command line of a pane agent. */
export interface SpawnDeps {
  env: Env;
  cwd: string;
  /** The spawning parent (recorded as `spawned_by_pid`, for `synapse cleanup`). */
  parentPid: number;
  /** `upWithinMs`: how long the CLI may take to come up before it returns with `stillStarting`. */
  background(spec: LaunchSpec, env: Env, upWithinMs?: number): Promise<{ entry: RegistryEntry; logFile: string; stillStarting: boolean }>;
  paneArgv(specFile: string): string[];
  /** Deploys a skill set for the new agent and tells it to load it. */
  applySkillSet(agentId: string, set: string): Promise<void>;
}

export interface Spawned {
  agent_id: string;
  name: string | null;
  profile: string;
  endpoint: string;
  pid: number;
  terminal: TerminalKind;
  pane: PaneRef | null;
  log_file: string | null;
  /** How to watch it: the command that shows its pane or follows its log. */
  attach: string;
  still_starting: boolean;
  skill_set: string | null;
  saved_agent: string | null;
}

/** How long a pane agent may take to register and show its first screen. */
const PANE_READY_MS = 45_000;

/** Variables a multiplexer or a wrapping agent set for *this* process: the new agent gets its own. */
const NOT_INHERITED = [
  'TMUX',
  'TMUX_PANE',
  'ZELLIJ',
  'ZELLIJ_SESSION_NAME',
  'ZELLIJ_PANE_ID',
  'SYNAPSE_AGENT_TYPE',
  'SYNAPSE_PORT',
  'SYNAPSE_HOOK',
  'SYNAPSE_TASK_ID',
  'SYNAPSE_LOG_FILE',
];

function childEnv(env: Env): Env {
  return Object.fromEntries(Object.entries(env).filter(([k]) => !NOT_INHERITED.includes(k)));
}

/** Who spawns: the agent the command runs inside (`SYNAPSE_AGENT_ID`, its pid), else the calling process. */
export function spawningParent(env: Env, callerPid: number): number {
  const self = env.SYNAPSE_AGENT_ID;
  const entry = self ? openRegistry(env).read(self) : null;
  return entry?.pid ?? callerPid;
}

/**
 * `synapse spawn`: starts one agent in a new pane (tmux, zellij) or in the background, and returns
 * once its registry entry says its CLI is up; a start that fails is an error with the reason (the
 * CLI's exit and last screen lines, or the log's tail).
 */
export async function spawnAgent(req: SpawnRequest, deps: SpawnDeps): Promise<Spawned> {
  // The depth guard first: an agent too deep starts nothing at all.
  const depth = depthMarks(nextSpawnDepth(deps.env));
  const r = resolveSpawn(req, deps.cwd, deps.env);
  const terminal = chooseTerminal(req.terminal ?? 'auto', deps.env);
  const spec: LaunchSpec = {
    profile: r.profile,
    cliArgs: req.cliArgs ?? [],
    flags: {
      ...(r.name ? { name: r.name } : {}),
      ...(r.role ? { role: r.role } : {}),
      ...(r.port !== undefined ? { port: r.port } : {}),
      ...(req.autoApprove ? { autoApprove: true } : {}),
      ...(req.worktree !== undefined ? { worktree: req.worktree } : {}),
      ...(req.lease?.idleMs !== undefined ? { keepIdleMs: req.lease.idleMs } : {}),
      ...(req.lease?.turns !== undefined ? { keepTurns: req.lease.turns } : {}),
    },
    extras: { spawned_by_pid: deps.parentPid, ...depth.extras, ...(r.skillSet ? { skill_set: r.skillSet } : {}) },
  };
  const env = { ...childEnv(deps.env), ...depth.env };
  const base = { profile: r.profile, terminal, skill_set: r.skillSet ?? null, saved_agent: r.savedId };
  let spawned: Spawned;
  if (terminal === 'background') {
    const { entry, logFile, stillStarting } = await deps.background(spec, env, req.readyWithinMs);
    spawned = { ...entryPart(entry), ...base, pane: null, log_file: logFile, attach: `synapse logs ${entry.agent_id} -f`, still_starting: stillStarting };
  } else {
    const { entry, pane } = await openPaneAgent(spec, terminal, env, deps, req.readyWithinMs);
    spawned = { ...entryPart(entry), ...base, pane, log_file: entry.log_file, attach: `synapse jump ${entry.agent_id}`, still_starting: false };
  }
  if (r.skillSet) await deps.applySkillSet(spawned.agent_id, r.skillSet);
  return spawned;
}

function entryPart(e: RegistryEntry) {
  return { agent_id: e.agent_id, name: e.name, endpoint: e.endpoint, pid: e.pid };
}

type PaneResult = { agent_id: string } | { error: { code: ErrorCode; message: string } };

function readResult(file: string): PaneResult | null {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as PaneResult;
  } catch {
    return null; // not written yet (or half written: the writer renames it into place)
  }
}

/** Opens the pane, then waits for its agent to register and its CLI to come up. */
async function openPaneAgent(
  spec: LaunchSpec,
  kind: PaneKind,
  env: Env,
  deps: SpawnDeps,
  readyWithinMs: number | undefined,
): Promise<{ entry: RegistryEntry; pane: PaneRef | null }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'synapse-spawn-'));
  try {
    const specFile = path.join(dir, 'spec.json');
    const paneSpec: PaneSpec = { agent: spec, env, kind, result: path.join(dir, 'result.json') };
    // The spawner's environment may hold keys: owner-only, and removed by the agent once read.
    fs.writeFileSync(specFile, JSON.stringify(paneSpec), { mode: 0o600 });
    const terminal = await paneTerminal(kind, deps.env);
    const opened = terminal.open({ argv: deps.paneArgv(specFile), cwd: deps.cwd, title: spec.flags.name ?? spec.profile });
    const registry = openRegistry(deps.env);
    const deadline = Date.now() + PANE_READY_MS;
    // With `readyWithinMs`, the CLI has that long from the agent's registration (as in the background).
    let upBy = Number.POSITIVE_INFINITY;
    let agentId: string | null = null;
    for (;;) {
      const result: PaneResult | null = agentId ? null : readResult(paneSpec.result);
      if (result && 'error' in result) throw new SynapseError(result.error.code, result.error.message);
      if (result) agentId = result.agent_id;
      if (agentId && readyWithinMs !== undefined && upBy === Number.POSITIVE_INFINITY) upBy = Date.now() + readyWithinMs;
      const entry = agentId ? registry.read(agentId) : null;
      if (entry && entry.status !== 'STARTING') return { entry, pane: paneOfEntry(entry) ?? opened };
      if (opened && terminal.alive(opened) === false) {
        const late = readResult(paneSpec.result);
        if (late && 'error' in late) throw new SynapseError(late.error.code, late.error.message);
        throw new SynapseError(
          'cli_exited',
          `the ${spec.profile} agent's ${kind} pane closed during start-up${agentId ? `; \`synapse logs ${agentId}\` says why` : ''}`,
        );
      }
      if (Date.now() >= Math.min(deadline, upBy)) {
        throw new SynapseError(
          'agent_not_ready',
          `the ${spec.profile} agent did not come up within ${(upBy < deadline ? readyWithinMs! : PANE_READY_MS) / 1000} s${agentId ? `; \`synapse logs ${agentId} --screen\` shows its screen` : ''}`,
          // Still running in its pane: the caller may stop it (`session restore` does).
          agentId ? { agent_id: agentId } : undefined,
        );
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Writes the pane agent's result where its spawner looks (temp file + rename: never half read). */
export function writePaneResult(file: string, result: PaneResult): void {
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(result), { mode: 0o600 });
  fs.renameSync(tmp, file);
}
