import type { Command } from 'commander';
import type { FileChange, FileLock } from '../../store/file-safety-schema.js';
import type { FileSafety } from '../../store/file-safety-api.js';
import { SynapseError } from '../../errors.js';
import { ExitRequest } from '../exit.js';
import { printJson, println, processIo, type CommandIo } from '../io.js';
import { renderTable } from '../table.js';
import { examples, parsePositiveInt, projectDir } from './store-cli.js';

/**
 * `synapse file-safety …`: one exported function per subcommand, called by commander with the
 * parsed arguments and options. The store (better-sqlite3) is imported only when one runs.
 */

async function requireEnabled(env: NodeJS.ProcessEnv): Promise<void> {
  const { fileSafetyEnabled } = await import('../../store/settings.js');
  if (!fileSafetyEnabled(env)) {
    throw new SynapseError('usage', 'file safety is disabled (SYNAPSE_FILE_SAFETY_ENABLED is off); unset it or set it to true to use file-safety commands');
  }
}

async function withStore<T>(io: CommandIo, fn: (s: FileSafety) => T | Promise<T>): Promise<T> {
  await requireEnabled(io.env);
  const { withFileSafety } = await import('../../store/file-safety-store.js');
  return withFileSafety(projectDir(io), { env: io.env }, fn);
}

/** The live registered agent an id or a name means, if any. */
async function registeredAgent(env: NodeJS.ProcessEnv, agent: string): Promise<{ agent_id: string; pid: number | null } | null> {
  const { findLiveAgent } = await import('../../registry/lookup.js');
  return findLiveAgent(agent, env);
}

/** A registered agent's name becomes its agent id; anything else is kept as given (see `resolveAgentIdOrName`). */
async function canonical(env: NodeJS.ProcessEnv, agent: string): Promise<string> {
  const { agentIdOrName } = await import('../../registry/lookup.js');
  return agentIdOrName(agent, env);
}

/**
 * A manager started with `--delegate-mode` coordinates and does not edit: a lock for it, or one
 * asked for from its terminal (`SYNAPSE_AGENT_ID`, or the agent among this command's ancestors),
 * is refused. The reason, or null when the write may go on.
 */
async function delegateDenial(io: CommandIo, agent: string): Promise<string | null> {
  const { liveAgents } = await import('../../registry/lookup.js');
  const { resolveSender } = await import('../../registry/sender.js');
  const { agentsNamed } = await import('../../registry/targets.js');
  const { inDelegateMode } = await import('../../registry/entry.js');
  const live = liveAgents(io.env);
  const caller = resolveSender(live, { env: io.env, pid: io.parentPid }).entry;
  const manager = [...agentsNamed(live, agent.trim()), ...(caller ? [caller] : [])].find(inDelegateMode);
  if (!manager) return null;
  const who = manager.name ? `${manager.name} (${manager.agent_id})` : manager.agent_id;
  return `${who} runs in delegate mode: it coordinates and does not edit files; hand the change to an agent with \`synapse send <agent> "<the change>" --task\``;
}

/**
 * Whose lock this is and which process keeps it alive. A registered, live agent (named the way
 * a send target is) is recorded by its agent id with the agent's own pid, because the shell an
 * agent's CLI runs a command in exits right after it. Otherwise the caller's parent process
 * (the shell or program that ran `synapse`) is the owner. `--pid` overrides; `--pid 0` means
 * "no owner process": the lock lives until its TTL or an unlock.
 */
async function owner(io: CommandIo, agent: string, pidOption: string | undefined): Promise<{ agent: string; pid: number | null }> {
  const registered = await registeredAgent(io.env, agent);
  const id = registered?.agent_id ?? agent.trim();
  if (pidOption !== undefined) {
    if (pidOption.trim() === '0') return { agent: id, pid: null };
    return { agent: id, pid: parsePositiveInt(pidOption, '--pid', 2 ** 31 - 1) };
  }
  return { agent: id, pid: registered?.pid ?? io.parentPid };
}

/** The path as locked: a tree's directory followed by `/**`. */
const label = (l: Pick<FileLock, 'path' | 'kind'>): string => (l.kind === 'tree' ? `${l.path}/**` : l.path);

function lockLine(l: FileLock): string {
  return `${label(l)}  ${l.agent_id}${l.pid === null ? '' : ` (pid ${l.pid})`}  until ${l.expires_at}${l.intent ? `  ${l.intent}` : ''}`;
}

function changeTable(rows: FileChange[]): string {
  return renderTable(
    ['WHEN', 'TYPE', 'AGENT', 'PATH', 'TASK', 'INTENT'],
    rows.map((c) => [c.recorded_at, c.change_type, c.agent_id, c.path, c.task_id ?? '-', c.intent ?? '-']),
  );
}

export interface LockOptions {
  intent?: string;
  /** Durations as typed; commander's defaults are '600', '60' and '2' (bare numbers are seconds). */
  ttl: string;
  wait?: boolean;
  waitTimeout: string;
  waitInterval: string;
  pid?: string;
  json?: boolean;
}

/** `synapse file-safety lock <path> <agent>`: locks or renews; `--wait` waits for the holder. */
export async function lockFile(file: string, agent: string, o: LockOptions, io: CommandIo): Promise<void> {
  const { parseDuration, formatDuration } = await import('../../store/duration.js');
  const ttlMs = parseDuration(o.ttl, 's', '--ttl');
  const timeoutMs = parseDuration(o.waitTimeout, 's', '--wait-timeout');
  const intervalMs = parseDuration(o.waitInterval, 's', '--wait-interval');
  const denied = await delegateDenial(io, agent);
  if (denied) throw new SynapseError('delegate_mode', `lock refused: ${denied}`);
  const who = await owner(io, agent, o.pid);
  const result = await withStore(io, async (s) => {
    const req = { path: file, agent: who.agent, pid: who.pid, intent: o.intent, ttlMs };
    if (!o.wait) return s.lock(req);
    let told = false;
    return s.lockWait(req, {
      timeoutMs,
      intervalMs,
      onWait: (holder) => {
        if (told) return;
        told = true;
        io.err(`waiting up to ${formatDuration(timeoutMs)} for ${holder.agent_id} to release ${holder.path}…\n`);
      },
    });
  });
  if (o.json) return printJson(io, result);
  if (result.reaped) println(io, `cleared stale lock of ${result.reaped.agent_id}`);
  println(io, `${result.renewed ? 'renewed' : 'locked'} ${lockLine(result.lock)}`);
}

/** `synapse file-safety unlock <path> <agent>`: only the owner can. */
export async function unlockFile(file: string, agent: string, o: { json?: boolean }, io: CommandIo): Promise<void> {
  const who = await canonical(io.env, agent);
  const result = await withStore(io, (s) => s.unlock(file, who));
  if (o.json) return printJson(io, result);
  println(io, result.released ? `unlocked ${result.path}` : `${result.path} was not locked by ${who} (nothing to do)`);
}

/** `synapse file-safety locks`: the live locks. */
export async function listLocks(o: { json?: boolean }, io: CommandIo): Promise<void> {
  const locks = await withStore(io, (s) => s.locks());
  if (o.json) return printJson(io, locks);
  if (locks.length === 0) return println(io, 'No files are locked.');
  println(
    io,
    renderTable(
      ['PATH', 'AGENT', 'PID', 'EXPIRES', 'INTENT'],
      locks.map((l) => [label(l), l.agent_id, l.pid === null ? '-' : String(l.pid), l.expires_at, l.intent ?? '-']),
    ),
  );
}

/** `synapse file-safety status`: counts of locks and changes. */
export async function fileSafetyStatus(o: { json?: boolean }, io: CommandIo): Promise<void> {
  const st = await withStore(io, (s) => s.status());
  if (o.json) return printJson(io, st);
  println(io, `active locks:      ${st.active_locks}`);
  println(io, `stale locks:       ${st.stale_locks} (removed by the next lock or cleanup)`);
  for (const [a, n] of Object.entries(st.agents)) println(io, `  ${a}: ${n}`);
  println(io, `changes recorded:  ${st.changes_total} (${st.changes_last_24h} in the last 24h)`);
}

/** `synapse file-safety validate <path> <agent>`: exit 0 = allowed, 1 = denied (or unreadable). */
export async function validateFile(file: string, agent: string, o: { json?: boolean }, io: CommandIo): Promise<void> {
  const { validateWrite } = await import('../../store/file-safety-store.js');
  const who = await canonical(io.env, agent);
  const denied = await delegateDenial(io, agent);
  const checked = await validateWrite(projectDir(io), file, who, io.env);
  const verdict = denied ? { ...checked, allowed: false, holder: null, reason: denied } : checked;
  if (o.json) printJson(io, verdict);
  else println(io, verdict.allowed ? `allowed: ${verdict.path}` : `denied: ${verdict.reason}`);
  if (!verdict.allowed) throw new ExitRequest(1);
}

/** `synapse file-safety record <path> <agent> --type …`. */
export async function recordChange(
  file: string,
  agent: string,
  o: { type: string; intent?: string; task?: string; json?: boolean },
  io: CommandIo,
): Promise<void> {
  const { CHANGE_TYPES } = await import('../../store/file-safety-schema.js');
  const type = o.type.trim().toLowerCase();
  if (!(CHANGE_TYPES as readonly string[]).includes(type)) throw new SynapseError('usage', `--type must be one of ${CHANGE_TYPES.join(', ')}, got '${o.type}'`);
  const who = await canonical(io.env, agent);
  const change = await withStore(io, (s) =>
    s.record({ path: file, agent: who, type: type as (typeof CHANGE_TYPES)[number], intent: o.intent, taskId: o.task }),
  );
  if (o.json) return printJson(io, change);
  println(io, `recorded ${change.change_type} of ${change.path} by ${change.agent_id}`);
}

/** `synapse file-safety history <path>`: changes to one file, newest first. */
export async function fileHistory(file: string, o: { limit: string; json?: boolean }, io: CommandIo): Promise<void> {
  const limit = parsePositiveInt(o.limit, '--limit');
  const rows = await withStore(io, (s) => s.history(file, limit));
  if (o.json) return printJson(io, rows);
  println(io, rows.length === 0 ? 'No changes recorded for this file.' : changeTable(rows));
}

/** `synapse file-safety recent`: the latest changes. */
export async function recentChanges(o: { limit: string; json?: boolean }, io: CommandIo): Promise<void> {
  const limit = parsePositiveInt(o.limit, '--limit');
  const rows = await withStore(io, (s) => s.recent(limit));
  if (o.json) return printJson(io, rows);
  println(io, rows.length === 0 ? 'No changes recorded yet.' : changeTable(rows));
}

/** `synapse file-safety cleanup --days N`: old change records and every stale lock. */
export async function cleanupFileSafety(o: { days: string; json?: boolean }, io: CommandIo): Promise<void> {
  const days = o.days.trim() === '0' ? 0 : parsePositiveInt(o.days, '--days');
  const result = await withStore(io, (s) => s.cleanup(days));
  if (o.json) return printJson(io, result);
  println(io, `deleted ${result.changes_deleted} change record(s), removed ${result.locks_reaped} stale lock(s)`);
}

/** `synapse file-safety cleanup-locks` (the original's): stale locks go, change records stay. */
async function cleanupStaleLocks(o: { json?: boolean }, io: CommandIo): Promise<void> {
  const removed = await withStore(io, (s) => s.reap());
  if (o.json) return printJson(io, { locks_reaped: removed });
  println(io, `removed ${removed} stale lock(s)`);
}

/** `synapse file-safety debug`: where the database is, its health and every lock row, as JSON. */
export async function fileSafetyDebug(io: CommandIo): Promise<void> {
  const { fileSafetyDbPath, fileSafetyEnabled } = await import('../../store/settings.js');
  const env = {
    // As set (the debug view shows the raw values; `enabled` is the reading).
    SYNAPSE_FILE_SAFETY_ENABLED: io.env.SYNAPSE_FILE_SAFETY_ENABLED ?? null,
    SYNAPSE_FILE_SAFETY_DB_PATH: io.env.SYNAPSE_FILE_SAFETY_DB_PATH ?? null,
  };
  const enabled = fileSafetyEnabled(io.env);
  if (!enabled) return printJson(io, { enabled, file: fileSafetyDbPath(projectDir(io), io.env), env });
  const info = await withStore(io, (s) => s.debugInfo());
  printJson(io, { enabled, env, ...info });
}

/** Declarations only, one block per subcommand: long, but there is no logic in it. */
// eslint-disable-next-line max-lines-per-function -- commander declarations, no logic
export function registerFileSafetyCommands(program: Command): void {
  const fsCmd = program
    .command('file-safety')
    .description('Per-file locks and a change log shared by the agents of this project (.synapse/file_safety.db, or the PostgreSQL store: SYNAPSE_STORE_URL)');
  examples(fsCmd, [
    'synapse file-safety lock src/app.ts alice --intent "refactor login"',
    'synapse file-safety validate src/app.ts bob',
    'synapse file-safety locks',
  ]);

  examples(
    fsCmd
      .command('lock')
      .description('Lock a file, or a directory tree written dir/**, for an agent (renews it if the agent already holds it)')
      .argument('<path>', "file to lock, or 'dir/**' for everything under dir (relative paths are resolved against the project; other globs are refused)")
      .argument('<agent>', 'agent id or name that will edit it')
      .option('--intent <text>', 'what the agent is about to do')
      .option('--ttl <duration>', 'how long the lock lasts unless renewed, e.g. 600, 10m, 1h (bare number = seconds)', '600')
      .option('--wait', 'wait for the current holder to release it instead of failing')
      .option('--wait-timeout <duration>', 'with --wait: give up after this long', '60')
      .option('--wait-interval <duration>', 'with --wait: how often to retry', '2')
      .option('--pid <pid>', "process whose death releases the lock (default: the agent's pid if registered, else the calling shell; 0 = TTL only)")
      .option('--json', 'print the lock as JSON'),
    [
      'synapse file-safety lock src/db.ts alice --intent "add index" --ttl 15m',
      "synapse file-safety lock 'src/auth/**' alice --intent 'rework login'",
      'synapse file-safety lock src/db.ts bob --wait --wait-timeout 2m',
    ],
  ).action((file: string, agent: string, o: LockOptions) => lockFile(file, agent, o, processIo()));

  examples(
    fsCmd
      .command('unlock')
      .description("Release an agent's lock (only the owner can)")
      .argument('<path>')
      .argument('<agent>')
      .option('--json', 'print as JSON'),
    ['synapse file-safety unlock src/db.ts alice', "synapse file-safety unlock 'src/auth/**' alice"],
  ).action((file: string, agent: string, o: { json?: boolean }) => unlockFile(file, agent, o, processIo()));

  examples(fsCmd.command('locks').description('List the live locks').option('--json', 'print as JSON'), ['synapse file-safety locks --json']).action(
    (o: { json?: boolean }) => listLocks(o, processIo()),
  );

  examples(fsCmd.command('status').description('Counts: live and stale locks, locks per agent, recorded changes').option('--json', 'print as JSON'), [
    'synapse file-safety status',
  ]).action((o: { json?: boolean }) => fileSafetyStatus(o, processIo()));

  examples(
    fsCmd
      .command('validate')
      .description('May this agent write the file? Exit 0 = allowed, 1 = denied (locked by another agent, or the database is unreadable)')
      .argument('<path>')
      .argument('<agent>')
      .option('--json', 'print the verdict as JSON'),
    ['synapse file-safety validate src/db.ts bob && echo ok-to-write'],
  ).action((file: string, agent: string, o: { json?: boolean }) => validateFile(file, agent, o, processIo()));

  examples(
    fsCmd
      .command('record')
      .description('Record a change an agent made to a file')
      .argument('<path>')
      .argument('<agent>')
      .requiredOption('--type <type>', 'create, modify or delete')
      .option('--intent <text>', 'why')
      .option('--task <id>', 'the task the change belongs to (shown by synapse trace)')
      .option('--json', 'print as JSON'),
    ['synapse file-safety record src/db.ts alice --type modify --intent "add index" --task 1a2b3c4d'],
  ).action((file: string, agent: string, o: { type: string; intent?: string; task?: string; json?: boolean }) => recordChange(file, agent, o, processIo()));

  examples(
    fsCmd
      .command('history')
      .description('Changes recorded for one file, newest first')
      .argument('<path>')
      .option('--limit <n>', 'at most this many', '50')
      .option('--json', 'print as JSON'),
    ['synapse file-safety history src/db.ts'],
  ).action((file: string, o: { limit: string; json?: boolean }) => fileHistory(file, o, processIo()));

  examples(
    fsCmd.command('recent').description('The latest recorded changes').option('--limit <n>', 'at most this many', '20').option('--json', 'print as JSON'),
    ['synapse file-safety recent --limit 5'],
  ).action((o: { limit: string; json?: boolean }) => recentChanges(o, processIo()));

  examples(
    fsCmd
      .command('cleanup')
      .description('Delete change records older than N days and every stale lock')
      .requiredOption('--days <n>', 'keep the last N days of changes (0 = delete all)')
      .option('--json', 'print as JSON'),
    ['synapse file-safety cleanup --days 30'],
  ).action((o: { days: string; json?: boolean }) => cleanupFileSafety(o, processIo()));

  examples(
    fsCmd
      .command('cleanup-locks')
      .description('Remove stale locks only (expired, or their owner process is dead); the change records stay')
      .option('-f, --force', "accepted for the original's scripts (nothing is asked)")
      .option('--json', 'print as JSON'),
    ['synapse file-safety cleanup-locks'],
  ).action((o: { json?: boolean }) => cleanupStaleLocks(o, processIo()));

  examples(fsCmd.command('debug').description('Where the database is, its schema, health, and every lock row with why it is (not) live'), [
    'synapse file-safety debug',
  ]).action(() => fileSafetyDebug(processIo()));
}
