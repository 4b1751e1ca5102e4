import path from 'node:path';
import type { Command } from 'commander';
import type { ModelPrice } from '../../config/pricing.js';
import type { HistoryStats } from '../../store/history.js';
import type { History } from '../../store/history-open.js';
import type { SqliteHistory } from '../../store/history-sqlite.js';
import { SynapseError } from '../../errors.js';
import { ExitRequest } from '../exit.js';
import { printJson, println, processIo, type CommandIo } from '../io.js';
import { examples, parsePositiveInt, projectDir } from './store-cli.js';

/**
 * `synapse history …` and `synapse trace`: one exported function per command, called by
 * commander with the parsed arguments and options. Store modules (better-sqlite3) are imported
 * inside them, so registering these commands costs other commands nothing.
 */

/**
 * Runs `fn` on the current project's history: the team's PostgreSQL store when one is configured
 * (SYNAPSE_STORE_URL / settings store.url), else the user's file; null when that file was never
 * created (reading creates none).
 */
async function withHistory<T>(io: CommandIo, fn: (h: History) => T | Promise<T>): Promise<T | null> {
  const { openExistingHistory } = await import('../../store/history-open.js');
  const history = await openExistingHistory(projectDir(io), { env: io.env });
  if (!history) return null;
  try {
    return await fn(history);
  } finally {
    await history.close();
  }
}

/** A note on stderr when recording is off, so an empty or stale history is not a mystery. */
async function noteIfDisabled(io: CommandIo): Promise<void> {
  const { historyEnabled } = await import('../../store/history.js');
  if (!historyEnabled(io.env))
    io.err(`note: history recording is off (SYNAPSE_HISTORY_ENABLED=${io.env.SYNAPSE_HISTORY_ENABLED ?? ''}); agents record nothing new\n`);
}

function positiveNumber(value: string, what: string): number {
  const n = Number(value);
  if (!/^\s*\d+(\.\d+)?\s*$/.test(value) || !Number.isFinite(n) || n <= 0)
    throw new SynapseError('usage', `${what} must be a number greater than 0, got '${value}'`);
  return n;
}

const agentFilter = (agent: string | undefined) => (agent ? { agent } : {});

/** `synapse history list`: recent finished tasks, newest first. */
export async function listHistory(o: { agent?: string; limit: string; json?: boolean }, io: CommandIo): Promise<void> {
  const limit = parsePositiveInt(o.limit, '--limit', 100_000);
  const list = (await withHistory(io, (h) => h.list({ agent: o.agent, limit }))) ?? [];
  if (o.json) return printJson(io, list);
  await noteIfDisabled(io);
  if (list.length === 0) return println(io, o.agent ? `No history for agent '${o.agent}'.` : 'No history yet: finished tasks appear here.');
  const { entryTable } = await import('./history-format.js');
  println(io, entryTable(list));
}

/** `synapse history show <id>`: one task in full. */
export async function showHistory(id: string, o: { agent?: string; json?: boolean }, io: CommandIo): Promise<void> {
  const entry = await withHistory(io, (h) => h.find(id, agentFilter(o.agent)));
  if (!entry) throw new SynapseError('task_not_found', `no task '${id}' in the history: nothing has been recorded yet`);
  if (o.json) return printJson(io, entry);
  const { describeEntry } = await import('./history-format.js');
  println(io, describeEntry(entry));
}

/** `synapse history search <keywords...>`: full text, best match first. */
export async function searchHistory(keywords: string[], o: { logic: string; agent?: string; limit: string; json?: boolean }, io: CommandIo): Promise<void> {
  const limit = parsePositiveInt(o.limit, '--limit', 100_000);
  const logic = o.logic.toUpperCase() as 'AND' | 'OR';
  const hits = (await withHistory(io, (h) => h.search(keywords, { logic, agent: o.agent, limit }))) ?? [];
  if (o.json) return printJson(io, hits);
  if (hits.length === 0) return println(io, `No history matches ${keywords.map((k) => `'${k}'`).join(logic === 'AND' ? ' and ' : ' or ')}.`);
  const { entryTable } = await import('./history-format.js');
  println(io, entryTable(hits));
}

const NO_STATS: HistoryStats = {
  total: 0,
  completed: 0,
  failed: 0,
  canceled: 0,
  success_rate: null,
  median_turn_ms: null,
  oldest: null,
  newest: null,
  db_bytes: 0,
  agents: [],
  usage: null,
};

/** The price table for estimated costs: the defaults with settings `pricing` over them. */
async function prices(io: CommandIo): Promise<Record<string, ModelPrice>> {
  const [{ loadSettings }, { priceTable }] = await Promise.all([import('../../config/settings.js'), import('../../config/pricing.js')]);
  try {
    return priceTable(loadSettings(io.cwd, io.env).pricing);
  } catch (err) {
    io.err(`note: settings not read (${(err as Error).message}); costs use the default prices\n`);
    return priceTable({});
  }
}

/** The user's history statistics (with token usage priced from the settings), or empty ones when nothing was recorded. */
export async function readHistoryStats(o: { agent?: string }, io: CommandIo): Promise<HistoryStats> {
  const table = await prices(io);
  return (await withHistory(io, (h) => h.stats({ ...agentFilter(o.agent), prices: table }))) ?? NO_STATS;
}

/** `synapse history stats`: totals, success rate, median turn time and, when the CLIs recorded it, token usage and its estimated cost. */
export async function historyStats(o: { agent?: string; json?: boolean }, io: CommandIo): Promise<void> {
  const stats = await readHistoryStats(o, io);
  if (o.json) return printJson(io, stats);
  await noteIfDisabled(io);
  const { statsText } = await import('./history-format.js');
  println(io, statsText(stats));
}

/** `synapse history export`: the whole history, oldest first, as JSON or CSV, to stdout or a file. */
export async function exportHistory(o: { format: 'json' | 'csv'; json?: boolean; agent?: string; output?: string }, io: CommandIo): Promise<void> {
  const format = o.json ? 'json' : o.format;
  const fs = await import('node:fs');
  const { writeExport } = await import('../../store/history-export.js');
  const fd = o.output ? fs.openSync(path.resolve(io.cwd, o.output), 'w') : null;
  // Chunks are gathered to ~64 KiB before each write: far fewer syscalls for a big history.
  let buffer = '';
  const flush = () => {
    if (buffer.length === 0) return;
    if (fd !== null) fs.writeSync(fd, buffer);
    else io.out(buffer);
    buffer = '';
  };
  const write = (chunk: string) => {
    buffer += chunk;
    if (buffer.length >= 65_536) flush();
  };
  let count: number;
  try {
    count =
      (await withHistory(io, async (h) =>
        // The local file streams row by row; a database answers in one result.
        writeExport(h.backend === 'sqlite' ? (h as SqliteHistory).store.iterate(agentFilter(o.agent)) : await h.all(agentFilter(o.agent)), format, write),
      )) ?? writeExport([], format, write);
    flush();
  } finally {
    if (fd !== null) fs.closeSync(fd);
  }
  if (o.output) io.err(`exported ${count} entr${count === 1 ? 'y' : 'ies'} to ${o.output}\n`);
}

export interface HistoryCleanupOptions {
  days?: string;
  maxSize?: string;
  dryRun?: boolean;
  force?: boolean;
  json?: boolean;
}

/**
 * `synapse history cleanup`: older than --days and/or the oldest until --max-size. Without
 * --force it asks on a terminal and refuses elsewhere.
 */
export async function cleanupHistory(o: HistoryCleanupOptions, io: CommandIo): Promise<void> {
  if (o.days === undefined && o.maxSize === undefined)
    throw new SynapseError('usage', 'say what to delete: --days N and/or --max-size MB (add --dry-run to preview)');
  const days = o.days === undefined ? undefined : positiveNumber(o.days, '--days');
  const maxBytes = o.maxSize === undefined ? undefined : Math.floor(positiveNumber(o.maxSize, '--max-size') * 1024 * 1024);
  const result = await withHistory(io, async (h) => {
    const preview = await h.cleanup({ days, maxBytes, dryRun: true });
    if (o.dryRun || preview.deleted === 0) return preview;
    if (!o.force) {
      const total = preview.deleted + preview.remaining;
      const what = `delete ${preview.deleted} of ${total} history entr${total === 1 ? 'y' : 'ies'}`;
      if (!io.isTerminal('stdin') || !io.isTerminal('stdout')) {
        throw new SynapseError(
          'usage',
          `cleanup would ${what}; not a terminal, so nothing was deleted: re-run with --force to delete, or --dry-run to preview`,
        );
      }
      if (!(await io.confirm(`${what[0]!.toUpperCase()}${what.slice(1)}?`))) {
        io.err('nothing deleted\n');
        throw new ExitRequest(1);
      }
    }
    return h.cleanup({ days, maxBytes });
  });
  if (!result) {
    if (o.json) return printJson(io, { dry_run: Boolean(o.dryRun), deleted: 0, bytes_before: 0, bytes_after: 0, remaining: 0 });
    return println(io, 'No history yet: nothing to clean up.');
  }
  if (o.json) return printJson(io, result);
  const mb = (b: number) => `${(b / 1024 / 1024).toFixed(2)} MB`;
  if (result.deleted === 0) return println(io, `Nothing to delete (${result.remaining} entries, ${mb(result.bytes_before)}).`);
  println(
    io,
    result.dry_run
      ? `Would delete ${result.deleted} entr${result.deleted === 1 ? 'y' : 'ies'}, keeping ${result.remaining} (about ${mb(result.bytes_before)} → ${mb(result.bytes_after)}).`
      : `Deleted ${result.deleted} entr${result.deleted === 1 ? 'y' : 'ies'}, kept ${result.remaining} (${mb(result.bytes_before)} → ${mb(result.bytes_after)}).`,
  );
}

/** `synapse trace <id>`: a task's whole path, from the history or from the running agents. */
export async function traceTask(id: string, o: { agent?: string; json?: boolean }, io: CommandIo): Promise<void> {
  const { gatherTrace } = await import('./trace-lookup.js');
  const trace = await gatherTrace(id, { env: io.env, projectDir: projectDir(io), ...agentFilter(o.agent) });
  if (o.json) return printJson(io, trace);
  const { traceText } = await import('./history-format.js');
  println(io, traceText(trace));
}

/** Where the history lives, and who can read it (issue 22: a PostgreSQL store is the team's). */
const HISTORY_DESCRIPTION =
  'Every finished task of every agent: list, show, search, stats, export, cleanup. Kept in ~/.synapse/history/history.db, or, with a PostgreSQL ' +
  'store (SYNAPSE_STORE_URL / settings store.url), in that database: then everyone using the store can read every task text, yours included';
const HISTORY_EXAMPLES = [
  'synapse history list --agent alice',
  'synapse history search parser error --logic AND',
  'synapse history stats',
  'synapse trace 1a2b3c4d',
  "SYNAPSE_STORE_URL=postgres://synapse@db.lan/team synapse history list   # the team's history across hosts (HOST column)",
];

/** Declarations only, one block per command: long, but there is no logic in it. */
export function registerHistoryCommands(program: Command): void {
  const history = program.command('history').description(HISTORY_DESCRIPTION);
  examples(history, HISTORY_EXAMPLES);

  examples(
    history
      .command('list')
      .description('Recent finished tasks, newest first')
      .option('--agent <agent>', 'only this agent (id, name or type)')
      .option('--limit <n>', 'at most this many', '50')
      .option('--json', 'print as JSON'),
    ['synapse history list', 'synapse history list --agent claude --limit 10 --json'],
  ).action((o: { agent?: string; limit: string; json?: boolean }) => listHistory(o, processIo()));

  examples(
    history
      .command('show')
      .description('One task in full: who sent it, receipts, input and output')
      .argument('<id>', 'task id or unique prefix')
      .option('--agent <agent>', 'pick the entry of this agent when several agents had the task')
      .option('--json', 'print as JSON'),
    ['synapse history show 1a2b3c4d', 'synapse history show 1a2b --json'],
  ).action((id: string, o: { agent?: string; json?: boolean }) => showHistory(id, o, processIo()));

  examples(
    history
      .command('search')
      .description('Full-text search over what was asked and answered, best match first')
      .argument('<keywords...>', 'words or "quoted phrases"; each also matches as a word prefix')
      .addOption(program.createOption('--logic <logic>', 'AND: every keyword must match; OR: any').choices(['AND', 'OR', 'and', 'or']).default('OR'))
      .option('--agent <agent>', 'only this agent (id, name or type)')
      .option('--limit <n>', 'at most this many', '50')
      .option('--json', 'print as JSON'),
    ['synapse history search migration', 'synapse history search "login form" validation --logic AND --agent alice'],
  ).action((keywords: string[], o: { logic: string; agent?: string; limit: string; json?: boolean }) => searchHistory(keywords, o, processIo()));

  examples(
    history
      .command('stats')
      .description(
        'Totals, success rate and median turn time, overall and per agent; TOKEN USAGE (input, output, cache read/write, estimated cost from settings `pricing`) when the CLIs recorded it',
      )
      .option('--agent <agent>', 'only this agent (id, name or type)')
      .option('--json', 'print as JSON (`usage` overall and per agent: null when no task recorded tokens)'),
    ['synapse history stats', 'synapse history stats --agent alice --json', "synapse history stats --json | jq '.agents[] | {agent_id, usage}'"],
  ).action((o: { agent?: string; json?: boolean }) => historyStats(o, processIo()));

  examples(
    history
      .command('export')
      .description('Write the whole history (oldest first) as JSON or CSV')
      .addOption(program.createOption('--format <format>', 'output format').choices(['json', 'csv']).default('json'))
      .option('--json', 'same as --format json')
      .option('--agent <agent>', 'only this agent (id, name or type)')
      .option('-o, --output <file>', 'write to this file instead of stdout'),
    ['synapse history export --format csv --output history.csv', 'synapse history export --agent alice > alice.json'],
  ).action((o: { format: 'json' | 'csv'; json?: boolean; agent?: string; output?: string }) => exportHistory(o, processIo()));

  examples(
    history
      .command('cleanup')
      .description('Delete old entries: older than --days, and/or the oldest until the file fits --max-size')
      .option('--days <n>', 'delete entries that finished more than this many days ago')
      .option('--max-size <mb>', 'then delete the oldest entries until the database is at most this many MB')
      .option('--dry-run', 'say what would be deleted, delete nothing')
      .option('--force', 'delete without asking (required when not run in a terminal)')
      .option('--json', 'print the result as JSON'),
    ['synapse history cleanup --days 30 --dry-run', 'synapse history cleanup --days 90 --force', 'synapse history cleanup --max-size 50 --force'],
  ).action((o: HistoryCleanupOptions) => cleanupHistory(o, processIo()));

  examples(
    program
      .command('trace')
      .description("A task's whole path: sender, receipts with times, reply source, the answer and the files changed for it")
      .argument('<id>', 'task id or unique prefix (finished tasks from the history; running ones from the agents)')
      .option('--agent <agent>', 'pick the entry of this agent when several agents had the task')
      .option('--json', 'print as JSON'),
    ['synapse trace 1a2b3c4d', 'synapse trace 1a2b --json'],
  ).action((id: string, o: { agent?: string; json?: boolean }) => traceTask(id, o, processIo()));
}
