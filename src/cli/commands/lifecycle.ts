import fs from 'node:fs';
import { formatLogChunk, formatLogLine } from '../log-lines.js';
import { StringDecoder } from 'node:string_decoder';
import { withBoard } from '../../store/board-store.js';
import { storeTarget } from '../../store/store-url.js';
import { editingFileOf } from '../../store/file-safety.js';
import { locksHeldBy } from '../../store/file-safety-store.js';
import { boardDbPath } from '../../store/settings.js';
import { formatDuration } from '../../store/duration.js';
import { requestJson } from '../../a2a/http-json.js';
import { apiKeyHeaders } from '../../config/auth-keys.js';
import { peerTls } from '../../a2a/peer-tls.js';
import { SynapseError } from '../../errors.js';
import { describeExit, findExitRecord, readExitRecords, RECENT_EXIT_MS, type ExitRecord } from '../../registry/exit-record.js';
import { isPidAlive } from '../../registry/liveness.js';
import { findAgent } from '../../registry/lookup.js';
import { writtenByOriginal, type RegistryEntry } from '../../registry/entry.js';
import type { CommandIo } from '../io.js';
import { preview, renderTable } from '../table.js';
import { listColumns } from '../../config/settings.js';
import { editingText, hostOf, skillSetOf, transportOf, withHost, type Editing } from '../../monitor/columns.js';
import type { HostedEntry } from '../../registry/host.js';
import { envSetting } from '../../config/env-setting.js';
import { lockEnforcement } from '../../config/pre-write-hook.js';
import type { ListColumn } from '../../config/keys.js';
import { absentStatus, isNotFound, waitingForAgent, waitingSection, waitingTargets } from './queue-view.js';

async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!isPidAlive(pid)) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return !isPidAlive(pid);
}

function signalAgent(pid: number, signal: NodeJS.Signals): void {
  // A background agent leads its own process group; a foreground one shares its shell's.
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
}

/** One process, not its group: what the original Synapse's own stop and kill signal. */
function signalPid(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // already gone: waitForExit sees it
  }
}

interface StopRequest {
  /** How it was asked, when not with `POST /shutdown` (said in the outcome line). */
  how: string | null;
  /** It has no `POST /shutdown`: an agent of the original Python Synapse. */
  original: boolean;
}

/**
 * Asks the agent to shut down: ours take `POST /shutdown`. The original Python Synapse has no
 * such route; its own `synapse stop` sends SIGTERM to the pid of the entry (its server then stops
 * the CLI and removes the entry), and so does this.
 */
async function askToStop(entry: RegistryEntry, env: NodeJS.ProcessEnv): Promise<StopRequest> {
  let res;
  try {
    res = await requestJson(`${entry.endpoint}/shutdown`, { method: 'POST', timeoutMs: 3000, headers: apiKeyHeaders(env, 'admin'), tls: peerTls(env) });
  } catch {
    signalPid(entry.pid, 'SIGTERM');
    return { how: `it did not answer POST /shutdown: SIGTERM to pid ${entry.pid}`, original: false };
  }
  if (res.status >= 200 && res.status < 300) return { how: null, original: false };
  signalPid(entry.pid, 'SIGTERM');
  if (res.status === 404 || res.status === 405)
    return {
      how: `an agent of the original Synapse, which has no POST /shutdown: SIGTERM to pid ${entry.pid}, as its own \`synapse stop\` does`,
      original: true,
    };
  return { how: `POST /shutdown answered ${res.status}: SIGTERM to pid ${entry.pid}`, original: false };
}

async function stopAgent(target: string, opts: { timeoutMs: number; force: boolean; escalate?: boolean }, io: CommandIo): Promise<RegistryEntry> {
  const { entry, registry } = findAgent(target, io.env);
  const label = `${entry.agent_id}${entry.name ? ` (${entry.name})` : ''}`;
  if (opts.force) {
    signalAgent(entry.pid, 'SIGKILL');
    await waitForExit(entry.pid, 2000);
    registry.prune(entry);
    io.out(`killed ${label}\n`);
    return entry;
  }
  const asked = await askToStop(entry, io.env);
  const seconds = opts.timeoutMs / 1000;
  if (await waitForExit(entry.pid, opts.timeoutMs)) {
    // An agent that exits removes its own entry; one that could not is pruned here (gone now).
    registry.scanLive();
    io.out(`stopped ${label}${asked.how ? ` (${asked.how})` : ''}\n`);
    return entry;
  }
  if (asked.original) {
    // As its own `synapse stop` does after 5 s: its server may wait 30 s for its CLI to go, and
    // then removes the entry of its id, even one a newer agent on the same port wrote meanwhile.
    signalPid(entry.pid, 'SIGKILL');
    await waitForExit(entry.pid, 2000);
    registry.prune(entry);
    io.out(
      `killed ${label} (an agent of the original Synapse: SIGKILL to pid ${entry.pid}, ${seconds} s after SIGTERM, as its own \`synapse stop\` does after 5 s)\n`,
    );
    return entry;
  }
  if (!opts.escalate) {
    throw new SynapseError(
      'internal',
      `${label} did not stop within ${seconds} s${asked.how ? ` (${asked.how})` : ''}; use \`synapse kill ${target}\` (or -f to SIGKILL)`,
    );
  }
  signalAgent(entry.pid, 'SIGTERM');
  if (await waitForExit(entry.pid, 3000)) {
    registry.scanLive();
    io.out(`terminated ${label} (SIGTERM)\n`);
    return entry;
  }
  signalAgent(entry.pid, 'SIGKILL');
  await waitForExit(entry.pid, 2000);
  registry.prune(entry);
  io.out(`killed ${label} (SIGKILL after SIGTERM timed out)\n`);
  return entry;
}

/** `synapse stop <target>`: asks the agent to shut down and waits `--timeout` seconds. */
export async function stopCommand(target: string, flags: { timeout: string }, io: CommandIo): Promise<void> {
  await closePane(await stopAgent(target, { timeoutMs: Number(flags.timeout) * 1000, force: false }, io), io);
}

/** `synapse kill <target>`: asks, then SIGTERM and SIGKILL to the process group; `-f` kills at once. */
/** How long `kill` waits for a graceful exit: `-t`, else `SYNAPSE_KILL_TIMEOUT` (30 s, the original's wait). */
export function killGraceSeconds(flag: string | undefined, env: NodeJS.ProcessEnv): number {
  if (flag === undefined) return envSetting(env, 'SYNAPSE_KILL_TIMEOUT');
  const n = Number(flag);
  if (!/^\s*\d+(\.\d+)?\s*$/.test(flag) || !Number.isFinite(n))
    throw new SynapseError('usage', `--timeout must be a number of seconds (0 or more), got '${flag}'`);
  return n;
}

export async function killCommand(target: string, flags: { force?: boolean; timeout?: string }, io: CommandIo): Promise<void> {
  const timeoutMs = killGraceSeconds(flags.timeout, io.env) * 1000;
  await closePane(await stopAgent(target, { timeoutMs, force: flags.force === true, escalate: true }, io), io);
}

/** An agent `synapse spawn` put in a pane: the pane goes with it (it closes by itself when the agent exits; this makes sure). */
async function closePane(entry: RegistryEntry, io: CommandIo): Promise<void> {
  if (!('pane' in entry)) return;
  const said = await (await import('./team-cli.js')).closePaneOf(entry, io);
  if (said) io.out(`  ${said}\n`);
}

/**
 * The file each agent holds a lock on (first of them, with a count): with a PostgreSQL store from
 * the store, for every host's agents (store/editing.ts); else from each local agent's project files.
 */
async function editingFiles(live: HostedEntry[], store: { shared: boolean; remoteError: string | null }, io: CommandIo): Promise<Map<string, Editing>> {
  const out = new Map<string, Editing>();
  if (store.shared) {
    const { editingFrom, storeLocks } = await import('../../store/editing.js');
    try {
      if (store.remoteError) throw new Error(store.remoteError); // asked already: not a second wait
      const locks = await storeLocks(io.cwd, io.env);
      for (const e of live) out.set(e.agent_id, editingFrom(locks, e));
    } catch (err) {
      io.err(`warning: EDITING_FILE unknown, the file-safety store cannot be read: ${(err as Error).message}\n`);
      for (const e of live) out.set(e.agent_id, 'unreadable');
    }
    return out;
  }
  const env = io.env;
  for (const e of live) {
    if (e.remote) continue; // its working directory is on another machine
    try {
      out.set(e.agent_id, editingFileOf(e.working_dir, e.agent_id, env));
    } catch {
      out.set(e.agent_id, 'unreadable');
    }
  }
  return out;
}

/** `3 s ago`, `4 min ago`, `2 h ago`. */
function ago(iso: string): string {
  const s = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
  return s < 60 ? `${s} s ago` : s < 3600 ? `${Math.round(s / 60)} min ago` : `${Math.round(s / 3600)} h ago`;
}

/** Agents whose CLI exited by itself in the last minutes (and that did not come back), with why. */
function recentExits(live: RegistryEntry[], io: CommandIo): string {
  const liveIds = new Set(live.map((e) => e.agent_id));
  const recent = readExitRecords(io.env).filter((r: ExitRecord) => !liveIds.has(r.agent_id) && Date.now() - Date.parse(r.exited_at) < RECENT_EXIT_MS);
  if (recent.length === 0) return '';
  const lines = recent.map(
    (r) =>
      `  ${r.agent_id}${r.name ? ` (${r.name})` : ''}  ${ago(r.exited_at)}  ${describeExit(r)}: ${preview(r.last_lines.at(-1), 60)}  (synapse logs ${r.agent_id})`,
  );
  return `Exited recently (the CLI quit by itself):\n${lines.join('\n')}\n`;
}

/**
 * `synapse list` printed once (not a terminal, `--json`, `--plain`): the live agents (dead entries
 * are pruned on the way), then the messages waiting for agents that are not running, then the
 * ones whose CLI just exited. `--json`: the registry entries as they are, each with
 * `editing_file` (the file it holds a lock on, or null) and `waiting_messages`; `--waiting`: only
 * the waiting messages, per target.
 */
export async function listAgents(flags: { json?: boolean; waiting?: boolean }, io: CommandIo): Promise<void> {
  const { discoverAgents } = await import('../../store/discovery.js');
  const found = await discoverAgents(io.cwd, io.env);
  const live: HostedEntry[] = found.entries;
  // Files that are not entries (corrupt, or another program's) are left alone, and said so.
  for (const p of found.problems) io.err(`skipped registry file ${p.file}: ${p.reason}\n`);
  if (found.remoteError) io.err(`warning: agents on other hosts are not shown: ${found.remoteError}\n`);
  if (flags.waiting) {
    const targets = waitingTargets(live, io);
    if (flags.json) io.out(`${JSON.stringify(targets, null, 2)}\n`);
    else io.out(waitingSection(targets) || 'No messages are waiting for an agent.\n');
    return;
  }
  const editing = await editingFiles(live, found, io);
  if (flags.json) {
    const withEditing = live.map((e) => {
      const file = editing.get(e.agent_id);
      return { ...e, editing_file: file && file !== 'unreadable' ? file.file : null, waiting_messages: waitingForAgent(e) };
    });
    io.out(`${JSON.stringify(withEditing, null, 2)}\n`);
    return;
  }
  const exits = recentExits(live, io);
  const waiting = waitingSection(waitingTargets(live, io).filter((w) => !w.running));
  if (live.length === 0) {
    io.out(`No agents running. Start one with \`synapse start echo\` or \`synapse claude\`.\n${waiting}${exits}`);
    return;
  }
  const now = Date.now();
  const cells = (e: RegistryEntry): Record<ListColumn, string> => ({
    ID: e.agent_id,
    HOST: hostOf(e),
    NAME: e.name ?? '-',
    TYPE: e.agent_type,
    ROLE: preview(e.role, 24),
    STATUS: e.status,
    CURRENT: preview(e.current_task_preview, 32),
    PORT: String(e.port),
    TRANSPORT: transportOf(e, now),
    EDITING_FILE: editingText(editing.get(e.agent_id) ?? null),
    WORKING_DIR: e.working_dir,
    SKILL_SET: skillSetOf(e),
  });
  // The columns and their order: settings `list.columns` (SYNAPSE_LIST_COLUMNS).
  const columns = withHost(listColumns(io.cwd, io.env, 'table'), found.shared);
  const rows = live.map((e: RegistryEntry) => {
    const row = cells(e);
    // Entries hold peers' text: no control character of theirs reaches the terminal.
    return columns.map((c) => row[c].replace(/[\p{Cc}]/gu, ''));
  });
  io.out(`${renderTable([...columns], rows)}\n${waiting}${leaseNotes(live)}${exits}`);
}

/** A spawned helper's lease (`lease` in its entry, runtime/lease.ts), in words; null without one. */
function leaseText(entry: RegistryEntry): string | null {
  const l = (entry as RegistryEntry & { lease?: Record<string, unknown> }).lease;
  if (typeof l !== 'object' || l === null) return null;
  const parts: string[] = [];
  if (typeof l.keep_idle_s === 'number') {
    const at = typeof l.idle_ends_at === 'string' ? Date.parse(l.idle_ends_at) : Number.NaN;
    parts.push(
      `after ${formatDuration(l.keep_idle_s * 1000)} READY with no task${Number.isNaN(at) ? '' : ` (idle now: in ${formatDuration(Math.max(0, at - Date.now()))})`}`,
    );
  }
  if (typeof l.keep_turns === 'number') parts.push(`after ${l.keep_turns} answered task(s) (${Number(l.turns_answered) || 0} so far)`);
  return parts.length ? `ends by itself ${parts.join(', or ')}` : null;
}

/** Under the table: the helpers that end by themselves, and when. */
function leaseNotes(live: RegistryEntry[]): string {
  const lines = live.flatMap((e) => {
    const text = leaseText(e);
    return text ? [`  ${e.name ?? e.agent_id}: ${text}`] : [];
  });
  return lines.length ? `Leases:\n${lines.join('\n')}\n` : '';
}

/**
 * What the agent says about itself on `GET /status`: ours `{status, queued, ready_for_messages …}`,
 * the original's `{status, lifecycle, ready, readiness_reason, context}`; null with why when it
 * does not answer with one (then the entry is all there is).
 */
async function liveStatus(
  entry: Pick<RegistryEntry, 'endpoint'>,
  env: NodeJS.ProcessEnv,
): Promise<{ live: Record<string, unknown> | null; why: string | null }> {
  try {
    const res = await requestJson<unknown>(`${entry.endpoint}/status`, { timeoutMs: 5000, headers: apiKeyHeaders(env), tls: peerTls(env) });
    if (res.status === 200 && typeof res.body === 'object' && res.body !== null) return { live: res.body as Record<string, unknown>, why: null };
    return { live: null, why: `GET /status answered ${res.status}` };
  } catch (err) {
    return { live: null, why: (err as Error).message };
  }
}

/** Whether it takes messages now: ours say `ready_for_messages`, the original `ready` with a reason. */
function accepting(live: Record<string, unknown> | null, why: string | null): string {
  if (!live) return `unknown (${why ?? 'no answer'})`;
  if (typeof live.ready_for_messages === 'boolean') return live.ready_for_messages ? 'yes' : 'not yet (starting)';
  if (typeof live.ready === 'boolean') return live.ready ? 'yes' : `not now (${typeof live.readiness_reason === 'string' ? live.readiness_reason : 'busy'})`;
  return 'unknown';
}

/** ` (holds 2 file locks)`: why the agent reports the status it does, when it says (the compound status). */
function statusReason(live: Record<string, unknown> | null): string {
  const reason = live?.status_reason;
  return typeof reason === 'string' && reason ? ` (${preview(reason.replace(/\p{Cc}/gu, ' '), 80)})` : '';
}

/** A line when the agent cannot write the history (a full disk): why, and how much waits in memory. */
function historyTrouble(live: Record<string, unknown> | null): string[] {
  const h = live?.history as { ok?: unknown; backlog?: unknown; dropped?: unknown; error?: unknown } | undefined;
  if (!h || h.ok !== false) return [];
  // The agent's own text, but it came over HTTP: no control bytes reach the terminal.
  const error = preview(typeof h.error === 'string' ? h.error.replace(/\p{Cc}/gu, ' ') : 'unknown error', 160);
  return [`  history      NOT RECORDING: ${error}; ${Number(h.backlog)} waiting in memory${Number(h.dropped) > 0 ? `, ${Number(h.dropped)} dropped` : ''}`];
}

/** Who spawned it, how deep, and its lease (spawned helpers only). */
function spawnLines(entry: RegistryEntry): string[] {
  const depth = (entry as RegistryEntry & { spawn_depth?: unknown }).spawn_depth;
  const lease = leaseText(entry);
  return [
    ...(typeof depth === 'number' ? [`  spawned      at depth ${depth} (SYNAPSE_MAX_SPAWN_DEPTH limits how deep agents spawn)`] : []),
    ...(lease ? [`  lease        ${lease}`] : []),
  ];
}

/** The project's env and hooks the agent started without (not trusted), said loudly. */
function withheldLine(entry: RegistryEntry): string[] {
  const withheld = (entry as RegistryEntry & { settings_withheld?: unknown }).settings_withheld;
  if (!Array.isArray(withheld) || withheld.length === 0) return [];
  const keys = withheld.map((k) => String(k).replace(/\p{Cc}/gu, ' ')).join(', ');
  return [`  settings     NOT APPLIED (project settings not trusted): ${preview(keys, 160)}; \`synapse trust\`, then restart it`];
}

interface RecentTask {
  task_id: string;
  status: string;
  finished_at: string;
  sender: string | null;
  input: string;
  output: string;
}

/** The agent's last finished tasks in the history, newest first (none when there is no history yet). */
async function recentHistory(agentId: string, projectDir: string, env: NodeJS.ProcessEnv, limit = 5): Promise<RecentTask[]> {
  const { openExistingHistory } = await import('../../store/history-open.js');
  const history = await openExistingHistory(projectDir, { env });
  if (!history) return [];
  try {
    return (await history.list({ agent: agentId, limit })).map((e) => ({
      task_id: e.task_id,
      status: e.status,
      finished_at: e.finished_at,
      sender: e.sender_name ?? e.sender_id,
      input: preview(e.input, 200),
      output: preview(e.output, 200),
    }));
  } finally {
    await history.close();
  }
}

/** `synapse status <target>`: the registry entry, what the agent says live, its locks, board tasks and recent history. */
export async function agentStatus(target: string, flags: { json?: boolean }, io: CommandIo): Promise<void> {
  let entry: RegistryEntry;
  try {
    entry = findAgent(target, io.env).entry;
  } catch (err) {
    // Not running, but messages were left for it here: those are its status.
    const absent = isNotFound(err) ? absentStatus(target, io) : null;
    if (!absent) throw err;
    io.out(flags.json ? `${JSON.stringify(absent.json, null, 2)}\n` : absent.text);
    return;
  }
  const { live, why } = await liveStatus(entry, io.env);
  const locks = await locksHeldBy(entry.working_dir, entry.agent_id, io.env);
  // A SQLite board is not created just to be read; a PostgreSQL one is always asked.
  const store = storeTarget(entry.working_dir, io.env);
  const boardTasks =
    store.backend === 'postgres' || fs.existsSync(boardDbPath(entry.working_dir))
      ? await withBoard(
          entry.working_dir,
          (b) => b.list({ assignee: [entry.agent_id, ...(entry.name ? [entry.name] : [])], status: ['pending', 'in_progress'] }),
          {
            env: io.env,
            target: store,
          },
        )
      : [];
  const original = writtenByOriginal(entry);
  const recent = await recentHistory(entry.agent_id, entry.working_dir, io.env);
  const waiting = waitingForAgent(entry);
  const enforcement = lockEnforcement(entry.agent_type, entry.working_dir);
  const out = {
    ...entry,
    original,
    live,
    locks,
    locks_enforced: enforcement.enforced,
    board_tasks: boardTasks,
    recent_history: recent,
    waiting_messages: waiting,
  };
  if (flags.json) {
    io.out(`${JSON.stringify(out, null, 2)}\n`);
    return;
  }
  const lines = [
    `${entry.agent_id}${entry.name ? ` (${entry.name})` : ''}  ${entry.agent_type}  ${typeof live?.status === 'string' ? live.status : entry.status}${statusReason(live)}`,
    `  synapse      ${original ? 'the original (Python): its entry and GET /status' : entry.synapse_version}`,
    `  endpoint     ${entry.endpoint}`,
    `  pid          ${entry.pid}`,
    `  working dir  ${entry.working_dir}`,
    `  role         ${entry.role ?? '-'}`,
    `  current      ${entry.current_task_preview ?? '-'}`,
    `  queued       ${typeof live?.queued === 'number' ? String(live.queued) : '-'}`,
    ...(waiting > 0 ? [`  waiting      ${waiting} message(s) left for it in the project's queue (taken at its next READY)`] : []),
    `  accepting    ${accepting(live, why)}`,
    ...historyTrouble(live),
    ...withheldLine(entry),
    ...spawnLines(entry),
    `  since        ${entry.registered_at}`,
    `  log          ${entry.log_file ?? '-'}`,
    `  locks        ${locks.length ? locks.map((l) => `${l.kind === 'tree' ? `${l.path}/**` : l.path}${l.intent ? ` (${l.intent})` : ''}`).join(', ') : '-'}`,
    `  enforcement  ${enforcement.detail}`,
    `  board tasks  ${boardTasks.length ? boardTasks.map((t) => `${t.id.slice(0, 8)} ${t.status} ${t.subject}`).join('; ') : '-'}`,
    ...(recent.length
      ? recent.map(
          (t, i) =>
            `  ${i === 0 ? 'history     ' : '            '} ${t.task_id.slice(0, 8)} ${t.finished_at} ${t.status}  ${preview(t.input.replace(/\p{Cc}/gu, ' '), 60)}`,
        )
      : ['  history      -']),
  ];
  io.out(`${lines.join('\n')}\n`);
}

/**
 * The CLI's screen as text: ours serve `GET /screen` (`{lines}`); the original has none, and its
 * `GET /status` carries the CLI's recent output as `context`.
 */
async function screenText(entry: Pick<RegistryEntry, 'agent_id' | 'endpoint'>, env: NodeJS.ProcessEnv): Promise<string> {
  const res = await requestJson<{ lines?: unknown }>(`${entry.endpoint}/screen`, { timeoutMs: 5000, headers: apiKeyHeaders(env), tls: peerTls(env) });
  if (res.status === 200 && Array.isArray(res.body?.lines)) return res.body.lines.join('\n');
  const { live, why } = await liveStatus(entry, env);
  if (typeof live?.context === 'string') return live.context;
  throw new SynapseError('not_found', `${entry.agent_id} shows no screen: GET /screen answered ${res.status}${why ? `, ${why}` : ''}`);
}

/**
 * The agent `target` names, live or, when none is, one whose CLI exited by itself: its log
 * outlives it, and the exit record says why it went away.
 */
function agentOrExit(
  target: string,
  io: CommandIo,
): { entry: Pick<RegistryEntry, 'agent_id' | 'endpoint' | 'log_file' | 'heartbeat_at'>; exit: ExitRecord | null } {
  try {
    return { entry: findAgent(target, io.env).entry, exit: null };
  } catch (err) {
    const exit = err instanceof SynapseError && err.code === 'target_not_found' ? findExitRecord(target, io.env) : null;
    if (!exit) throw err;
    return { entry: { agent_id: exit.agent_id, endpoint: '', log_file: exit.log_file, heartbeat_at: exit.exited_at }, exit };
  }
}

/** `synapse logs <target>`: the last `--lines` of its log (`-f` keeps following), or its screen now. */
export async function agentLogs(target: string, flags: { lines: string; follow?: boolean; screen?: boolean }, io: CommandIo): Promise<void> {
  const { entry, exit } = agentOrExit(target, io);
  if (exit) {
    io.out(`${exit.agent_id} is gone: its CLI exited ${exit.exited_at} (${describeExit(exit)}).\n`);
    // Its screen is gone with it: what it last showed is in the record.
    if (flags.screen || !exit.log_file) {
      io.out(`${exit.last_lines.join('\n')}\n`);
      return;
    }
  }
  if (flags.screen) {
    io.out(`${(await screenText(entry, io.env)).trimEnd()}\n`);
    return;
  }
  if (!entry.log_file) {
    const where = writtenByOriginal(entry)
      ? ': it is an agent of the original Python Synapse, whose `synapse start` logs to ~/.synapse/logs/<profile>.log; `synapse logs --screen` shows its recent output'
      : '';
    throw new SynapseError('not_found', `${entry.agent_id} has no log file${where}`);
  }
  const file = entry.log_file;
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new SynapseError('not_found', `cannot read ${file}: ${(err as Error).message}`);
  }
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  io.out(
    `${lines
      .slice(-Math.max(1, Number(flags.lines)))
      .map(formatLogLine)
      .join('\n')}\n`,
  );
  // Nobody writes to a gone agent's log: nothing to follow.
  if (!flags.follow || exit) return;
  let offset = Buffer.byteLength(text);
  // Appends arrive in byte chunks; the decoder holds back a character split between two of them.
  const decoder = new StringDecoder('utf8');
  await new Promise<void>(() => {
    fs.watchFile(file, { interval: 250 }, (cur) => {
      if (cur.size <= offset) return;
      const fd = fs.openSync(file, 'r');
      const buf = Buffer.alloc(cur.size - offset);
      fs.readSync(fd, buf, 0, buf.length, offset);
      fs.closeSync(fd);
      offset = cur.size;
      io.out(formatLogChunk(decoder.write(buf)));
    });
  });
}
