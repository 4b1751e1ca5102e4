import { redactDeep, secretRedactor, type Redactor } from '../redact.js';
import fs from 'node:fs';
import path from 'node:path';
import type { Task } from '../agent-api/task.js';
import type { Env } from '../config/paths.js';
import { SynapseError } from '../errors.js';
import { iso, systemClock, type Clock } from '../clock.js';
import { entryFromTask, entryToRow, rowToEntry } from './history-entry.js';
import {
  HISTORY_MIGRATIONS,
  historyDbPath,
  type AgentStats,
  type CleanupResult,
  type HistoryAgent,
  type HistoryEntry,
  type HistoryRow,
  type HistoryStats,
} from './history-schema.js';
import { StoreDb } from './store-db.js';
import { usageStats, type UsageRow } from './history-usage.js';
import { DEFAULT_PRICES, type ModelPrice } from '../config/pricing.js';
import { envSetting } from '../config/env-setting.js';
import type { SearchLogic } from './history-api.js';
import { checkCleanup, oneMatch, pickDoomed, searchTerms, summarizeAgents } from './history-rules.js';

export * from './history-schema.js';
export { entryFromTask, isRecordable } from './history-entry.js';

/** History is on unless `SYNAPSE_HISTORY_ENABLED` says false/0/off. */
export function historyEnabled(env: Env): boolean {
  return envSetting(env, 'SYNAPSE_HISTORY_ENABLED');
}

export type { SearchLogic } from './history-api.js';

/** `agent` matches an agent id, a name or a type (`claude` = every Claude agent). */
const agentFilter = (table = '') => `(${table}agent_id = @agent OR ${table}agent_name = @agent OR ${table}agent_type = @agent)`;
const AGENT_FILTER = agentFilter();
/** Bytes an entry holds, for the size-based cleanup estimate. */
const PAYLOAD = 'LENGTH(CAST(input AS BLOB)) + LENGTH(CAST(output AS BLOB)) + LENGTH(CAST(metadata AS BLOB)) + LENGTH(CAST(receipt AS BLOB)) + 200';

/**
 * Every finished task of every agent of this user (`~/.synapse/history/history.db`), with
 * full-text search over what was asked and answered. Agents write one upsert per finished
 * task; the CLI reads. WAL lets both happen at once.
 */
export class HistoryStore {
  readonly file: string;
  private readonly store: StoreDb;
  private readonly clock: Clock;

  /** Credentials are redacted before anything is written (issue 21 §4). */
  private readonly redact: Redactor;

  constructor(file: string, options: { clock?: Clock; redact?: Redactor } = {}) {
    this.file = file;
    this.redact = options.redact ?? secretRedactor({});
    this.clock = options.clock ?? systemClock;
    // The texts of every conversation live here: keep the directory private to the user.
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    this.store = new StoreDb(file, HISTORY_MIGRATIONS);
  }

  static open(env: Env, options: { clock?: Clock } = {}): HistoryStore {
    return new HistoryStore(historyDbPath(env), { ...options, redact: secretRedactor(env) });
  }

  /** The user's history, or null when nothing was ever recorded (reading creates no file). */
  static openExisting(env: Env, options: { clock?: Clock } = {}): HistoryStore | null {
    return fs.existsSync(historyDbPath(env)) ? HistoryStore.open(env, options) : null;
  }

  close(): void {
    this.store.close();
  }

  /** Adds or refreshes the entry of a finished task (a later explicit reply replaces the answer). */
  record(task: Task, agent: HistoryAgent): HistoryEntry {
    const e = redactDeep(entryFromTask(task, agent), this.redact);
    const row = entryToRow(e);
    this.store.run((db) =>
      db
        .prepare(
          `INSERT INTO history (task_id, agent_id, agent_name, agent_type, working_dir, sender_id, sender_name, sender_type, input, output, status, status_message,
             priority, context_id, reply_source, receipt, metadata, created_at, finished_at, duration_ms, turn_ms,
             input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, usage)
           VALUES (@task_id, @agent_id, @agent_name, @agent_type, @working_dir, @sender_id, @sender_name, @sender_type, @input, @output, @status, @status_message,
             @priority, @context_id, @reply_source, @receipt, @metadata, @created_at, @finished_at, @duration_ms, @turn_ms,
             @input_tokens, @output_tokens, @cache_read_tokens, @cache_write_tokens, @usage)
           ON CONFLICT (task_id, agent_id) DO UPDATE SET
             agent_name = excluded.agent_name, agent_type = excluded.agent_type, working_dir = excluded.working_dir,
             sender_id = excluded.sender_id, sender_name = excluded.sender_name, sender_type = excluded.sender_type,
             input = excluded.input, output = excluded.output, status = excluded.status, status_message = excluded.status_message,
             priority = excluded.priority, context_id = excluded.context_id, reply_source = excluded.reply_source,
             receipt = excluded.receipt, metadata = excluded.metadata, created_at = excluded.created_at,
             finished_at = excluded.finished_at, duration_ms = excluded.duration_ms, turn_ms = excluded.turn_ms,
             input_tokens = COALESCE(excluded.input_tokens, input_tokens), output_tokens = COALESCE(excluded.output_tokens, output_tokens),
             cache_read_tokens = COALESCE(excluded.cache_read_tokens, cache_read_tokens),
             cache_write_tokens = COALESCE(excluded.cache_write_tokens, cache_write_tokens), usage = COALESCE(excluded.usage, usage)`,
        )
        .run(row),
    );
    return e;
  }

  /** Newest first. */
  list(filter: { agent?: string; limit?: number } = {}): HistoryEntry[] {
    return this.store.run((db) => {
      const where = filter.agent ? `WHERE ${AGENT_FILTER}` : '';
      const rows = db
        .prepare(`SELECT * FROM history ${where} ORDER BY finished_at DESC, seq DESC LIMIT @limit`)
        .all({ limit: filter.limit ?? 50, ...(filter.agent ? { agent: filter.agent } : {}) });
      return (rows as HistoryRow[]).map(rowToEntry);
    });
  }

  /** The working directories an agent with this custom name finished tasks in (who was seen where). */
  workingDirsOfName(name: string): string[] {
    return this.store.run((db) =>
      (db.prepare(`SELECT DISTINCT working_dir FROM history WHERE agent_name = ? AND working_dir IS NOT NULL`).all(name) as { working_dir: string }[]).map(
        (r) => r.working_dir,
      ),
    );
  }

  /** One entry by full task id or unique prefix; ambiguity lists the candidates. */
  find(idOrPrefix: string, filter: { agent?: string } = {}): HistoryEntry {
    const prefix = idOrPrefix.trim();
    if (prefix.length === 0) throw new SynapseError('usage', 'give a task id or the start of one');
    return this.store.run((db) => {
      const agent = filter.agent ? `AND ${AGENT_FILTER}` : '';
      const params = { id: prefix, like: `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`, ...(filter.agent ? { agent: filter.agent } : {}) };
      let rows = db.prepare(`SELECT * FROM history WHERE task_id = @id ${agent} ORDER BY finished_at DESC LIMIT 11`).all(params) as HistoryRow[];
      if (rows.length === 0)
        rows = db.prepare(`SELECT * FROM history WHERE task_id LIKE @like ESCAPE '\\' ${agent} ORDER BY finished_at DESC LIMIT 11`).all(params) as HistoryRow[];
      return rowToEntry(oneMatch(rows, prefix, filter.agent));
    });
  }

  /**
   * FTS5 search over input and output, best match first. Each keyword is matched as a phrase
   * (and as a prefix of its last word); AND needs every keyword, OR any. User text is quoted,
   * so FTS5 operators in it cannot cause syntax errors.
   */
  search(keywords: string[], options: { logic?: SearchLogic; agent?: string; limit?: number } = {}): HistoryEntry[] {
    const terms = searchTerms(keywords);
    const match = terms.map((t) => `"${t.replace(/"/g, '""')}"*`).join(options.logic === 'AND' ? ' AND ' : ' OR ');
    return this.store.run((db) => {
      const agent = options.agent ? `AND ${agentFilter('h.')}` : '';
      const rows = db
        .prepare(
          `SELECT h.* FROM history_fts JOIN history h ON h.seq = history_fts.rowid
           WHERE history_fts MATCH @match ${agent} ORDER BY bm25(history_fts), h.finished_at DESC LIMIT @limit`,
        )
        .all({ match, limit: options.limit ?? 50, ...(options.agent ? { agent: options.agent } : {}) }) as HistoryRow[];
      return rows.map(rowToEntry);
    });
  }

  /** Entries linked to a task: answers that name it (`in_reply_to`) and the task it answered. */
  related(entry: HistoryEntry): HistoryEntry[] {
    return this.store.run((db) => {
      const inReplyTo = typeof entry.metadata.in_reply_to === 'string' ? entry.metadata.in_reply_to : null;
      const rows = db
        .prepare(
          `SELECT * FROM history WHERE (json_extract(metadata, '$.in_reply_to') = @id OR task_id = @parent) AND NOT (task_id = @id AND agent_id = @agent)
           ORDER BY finished_at LIMIT 20`,
        )
        .all({ id: entry.task_id, parent: inReplyTo, agent: entry.agent_id }) as HistoryRow[];
      return rows.map(rowToEntry);
    });
  }

  /** All entries, oldest first, one at a time (for export). */
  *iterate(filter: { agent?: string } = {}): Generator<HistoryEntry> {
    const where = filter.agent ? `WHERE ${AGENT_FILTER}` : '';
    const stmt = this.store.db.prepare(`SELECT * FROM history ${where} ORDER BY finished_at, seq`);
    for (const row of stmt.iterate(filter.agent ? { agent: filter.agent } : {})) yield rowToEntry(row as HistoryRow);
  }

  /** Totals, success rate (completed / all) and median turn time of completed tasks, overall and per agent. */
  stats(filter: { agent?: string; prices?: Readonly<Record<string, ModelPrice>> } = {}): HistoryStats {
    return this.store.run((db) => {
      const where = filter.agent ? `WHERE ${AGENT_FILTER}` : '';
      const params = filter.agent ? { agent: filter.agent } : {};
      const perAgent = db
        .prepare(
          `SELECT agent_id, MAX(agent_name) AS agent_name, MAX(agent_type) AS agent_type, COUNT(*) AS total,
             SUM(status = 'completed') AS completed, SUM(status = 'failed') AS failed, SUM(status = 'canceled') AS canceled
           FROM history ${where} GROUP BY agent_id ORDER BY total DESC, agent_id`,
        )
        .all(params) as Array<Omit<AgentStats, 'success_rate' | 'median_turn_ms'>>;
      const turns = new Map<string, number[]>();
      const allTurns: number[] = [];
      const turnRows = db
        .prepare(`SELECT agent_id, turn_ms FROM history ${where ? `${where} AND` : 'WHERE'} status = 'completed' AND turn_ms IS NOT NULL ORDER BY turn_ms`)
        .all(params) as Array<{ agent_id: string; turn_ms: number }>;
      for (const r of turnRows) {
        allTurns.push(r.turn_ms);
        const list = turns.get(r.agent_id) ?? [];
        list.push(r.turn_ms);
        turns.set(r.agent_id, list);
      }
      const span = db.prepare(`SELECT MIN(finished_at) AS oldest, MAX(finished_at) AS newest FROM history ${where}`).get(params) as {
        oldest: string | null;
        newest: string | null;
      };
      const usage = usageStats(
        db
          .prepare(
            `SELECT agent_id, usage, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens FROM history ${where ? `${where} AND` : 'WHERE'} input_tokens IS NOT NULL`,
          )
          .all(params) as UsageRow[],
        filter.prices ?? DEFAULT_PRICES,
      );
      return {
        ...summarizeAgents(perAgent, turns, allTurns, usage),
        oldest: span.oldest,
        newest: span.newest,
        db_bytes: this.bytes(),
        usage: usage.total,
      };
    });
  }

  /** The database file plus its WAL, in bytes. */
  bytes(): number {
    let n = 0;
    for (const f of [this.file, `${this.file}-wal`]) {
      try {
        n += fs.statSync(f).size;
      } catch {
        // no WAL right now
      }
    }
    return n;
  }

  /**
   * Deletes entries finished more than `days` ago and/or the oldest entries until the file fits
   * in `maxBytes`, then compacts the file. Sizes are estimated from each entry's share of the
   * payload, so a dry run can say what would go; a real run re-measures after compacting and
   * trims again when the estimate fell short.
   */
  cleanup(options: { days?: number; maxBytes?: number; dryRun?: boolean }): CleanupResult {
    checkCleanup(options);
    const before = this.bytes();
    const cutoff = options.days === undefined ? null : iso(this.clock.now() - options.days * 86_400_000);
    let doomed = this.doomed(cutoff, options.maxBytes);
    const remainingBefore = this.count();
    if (options.dryRun) {
      return {
        dry_run: true,
        deleted: doomed.seqs.length,
        bytes_before: before,
        bytes_after: Math.max(0, before - doomed.estimatedBytes),
        remaining: remainingBefore - doomed.seqs.length,
      };
    }
    let deleted = this.deleteSeqs(doomed.seqs);
    if (deleted > 0) this.compact();
    // The estimate cannot see fixed overhead until the file is compacted: measure and trim again.
    for (let round = 0; round < 2 && options.maxBytes !== undefined && this.bytes() > options.maxBytes; round++) {
      doomed = this.doomed(null, options.maxBytes);
      if (doomed.seqs.length === 0) break;
      deleted += this.deleteSeqs(doomed.seqs);
      this.compact();
    }
    return { dry_run: false, deleted, bytes_before: before, bytes_after: this.bytes(), remaining: this.count() };
  }

  count(): number {
    return this.store.run((db) => (db.prepare('SELECT COUNT(*) AS n FROM history').get() as { n: number }).n);
  }

  /** Which entries a cleanup removes: too old, then the oldest of the rest beyond the size budget. */
  private doomed(cutoff: string | null, maxBytes: number | undefined): { seqs: number[]; estimatedBytes: number } {
    return this.store.run((db) => {
      const rows = db.prepare(`SELECT seq, finished_at, ${PAYLOAD} AS bytes FROM history ORDER BY finished_at DESC, seq DESC`).all() as Array<{
        seq: number;
        finished_at: string;
        bytes: number;
      }>;
      const payload = rows.reduce((n, r) => n + r.bytes, 0);
      // What one payload byte costs on disk (indexes, FTS, page slack); at least 1.
      const ratio = payload > 0 ? Math.max(1, this.bytes() / payload) : 1;
      return pickDoomed(rows, cutoff, maxBytes, ratio);
    });
  }

  private deleteSeqs(seqs: number[]): number {
    if (seqs.length === 0) return 0;
    return this.store.write((db) => {
      const del = db.prepare('DELETE FROM history WHERE seq = ?');
      let n = 0;
      for (const s of seqs) n += del.run(s).changes;
      return n;
    });
  }

  private compact(): void {
    this.store.run((db) => {
      db.prepare(`INSERT INTO history_fts(history_fts) VALUES ('optimize')`).run();
      db.prepare('VACUUM').run();
      db.pragma('wal_checkpoint(TRUNCATE)');
    });
  }
}
