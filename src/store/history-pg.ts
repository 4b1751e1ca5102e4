import os from 'node:os';
import type { Task } from '../agent-api/task.js';
import { iso, systemClock, type Clock } from '../clock.js';
import { DEFAULT_PRICES, type ModelPrice } from '../config/pricing.js';
import { SynapseError } from '../errors.js';
import { redactDeep, type Redactor } from '../redact.js';
import type { History, SearchLogic } from './history-api.js';
import { entryFromTask, rowToEntry } from './history-entry.js';
import { HISTORY_PG_MIGRATIONS, PG_COLUMNS, storedRow, type PgHistoryRow } from './history-pg-schema.js';
import { checkCleanup, oneMatch, pickDoomed, searchTerms, summarizeAgents } from './history-rules.js';
import type { AgentStats, CleanupResult, HistoryAgent, HistoryEntry, HistoryRow, HistoryStats } from './history-schema.js';
import { usageStats, type UsageRow } from './history-usage.js';
import { PgDb, migrateComponent, withPgDb } from './pg-db.js';

/** Bytes an entry holds (its texts and JSON plus a fixed share), as the SQLite cleanup estimates them. */
const PAYLOAD = 'octet_length(input) + octet_length(output) + octet_length(metadata) + octet_length(receipt) + 200';

const NUMERIC = ['seq', 'priority', 'duration_ms', 'turn_ms', 'input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_write_tokens'] as const;

/** A database row (BIGINTs arrive as text) → the entry, with the host that recorded it. */
function toEntry(row: PgHistoryRow): HistoryEntry {
  const { host, ...rest } = row;
  const r = { ...rest } as Record<string, unknown>;
  for (const k of NUMERIC) r[k] = r[k] === null || r[k] === undefined ? null : Number(r[k]);
  return { ...rowToEntry(r as unknown as HistoryRow), host };
}

/** Each keyword a phrase of its words, the last word also as a prefix; words are letters and digits only, so the query cannot be malformed. */
function tsquery(terms: string[], logic: SearchLogic): string | null {
  const phrases = terms
    .map((t) => (t.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).map((w, i, all) => (i === all.length - 1 ? `${w}:*` : w)).join(' <-> '))
    .filter((p) => p.length > 0)
    .map((p) => `(${p})`);
  return phrases.length > 0 ? phrases.join(logic === 'AND' ? ' & ' : ' | ') : null;
}

/**
 * History in the team's PostgreSQL store: every finished task of every agent on every host that
 * uses this store, with the host that recorded it. The columns are the SQLite ones (times as ISO
 * text, receipt and metadata as JSON text) plus `host`, `in_reply_to` and a generated `tsvector`.
 */
export class PgHistory implements History {
  readonly backend = 'postgres' as const;

  private constructor(
    private readonly db: PgDb,
    private readonly redact: Redactor,
    private readonly clock: Clock,
    private readonly host: string,
  ) {}

  get location(): string {
    return this.db.shown;
  }

  static async open(url: string, options: { redact: Redactor; clock?: Clock; retryForMs?: number; host?: string }): Promise<PgHistory> {
    const db = new PgDb(url, { retryForMs: options.retryForMs, max: 2 });
    try {
      await db.migrate('history', HISTORY_PG_MIGRATIONS);
    } catch (err) {
      await db.close();
      throw err;
    }
    return new PgHistory(db, options.redact, options.clock ?? systemClock, options.host ?? os.hostname());
  }

  async close(): Promise<void> {
    await this.db.close();
  }

  /** One upsert; a later update of the task (an explicit reply) replaces the answer, usage once recorded stays. */
  async record(task: Task, agent: HistoryAgent): Promise<HistoryEntry> {
    const e = redactDeep(entryFromTask(task, agent), this.redact);
    const row = storedRow(e, this.host);
    const cols = PG_COLUMNS;
    const keep = new Set(['input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_write_tokens', 'usage']);
    const set = cols
      .filter((c) => c !== 'task_id' && c !== 'agent_id')
      .map((c) => (keep.has(c) ? `${c} = COALESCE(EXCLUDED.${c}, history.${c})` : `${c} = EXCLUDED.${c}`))
      .join(', ');
    await this.db.tx(
      (q) =>
        q(
          `INSERT INTO history (${cols.join(', ')}) VALUES (${cols.map((_, i) => `$${i + 1}`).join(', ')})
           ON CONFLICT (task_id, agent_id) DO UPDATE SET ${set}`,
          cols.map((c) => row[c]),
        ),
      { autocommit: true },
    );
    return { ...e, host: this.host };
  }

  async list(filter: { agent?: string; limit?: number } = {}): Promise<HistoryEntry[]> {
    const rows = await this.db.query<PgHistoryRow>(
      `SELECT * FROM history WHERE ($1::text IS NULL OR agent_id = $1 OR agent_name = $1 OR agent_type = $1)
       ORDER BY finished_at DESC, seq DESC LIMIT $2`,
      [filter.agent ?? null, filter.limit ?? 50],
    );
    return rows.map(toEntry);
  }

  async workingDirsOfName(name: string): Promise<string[]> {
    const rows = await this.db.query<{ working_dir: string }>(`SELECT DISTINCT working_dir FROM history WHERE agent_name = $1 AND working_dir IS NOT NULL`, [
      name,
    ]);
    return rows.map((r) => r.working_dir);
  }

  async find(idOrPrefix: string, filter: { agent?: string } = {}): Promise<HistoryEntry> {
    const prefix = idOrPrefix.trim();
    if (prefix.length === 0) throw new SynapseError('usage', 'give a task id or the start of one');
    const agent = `($2::text IS NULL OR agent_id = $2 OR agent_name = $2 OR agent_type = $2)`;
    let rows = await this.db.query<PgHistoryRow>(`SELECT * FROM history WHERE task_id = $1 AND ${agent} ORDER BY finished_at DESC LIMIT 11`, [
      prefix,
      filter.agent ?? null,
    ]);
    if (rows.length === 0) {
      const like = `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      rows = await this.db.query<PgHistoryRow>(`SELECT * FROM history WHERE task_id LIKE $1 AND ${agent} ORDER BY finished_at DESC LIMIT 11`, [
        like,
        filter.agent ?? null,
      ]);
    }
    return toEntry(oneMatch(rows, prefix, filter.agent));
  }

  async search(keywords: string[], options: { logic?: SearchLogic; agent?: string; limit?: number } = {}): Promise<HistoryEntry[]> {
    const query = tsquery(searchTerms(keywords), options.logic ?? 'OR');
    if (query === null) return [];
    const rows = await this.db.query<PgHistoryRow>(
      `SELECT h.* FROM history h, to_tsquery('simple', $1) q
        WHERE h.search @@ q AND ($2::text IS NULL OR agent_id = $2 OR agent_name = $2 OR agent_type = $2)
        ORDER BY ts_rank(h.search, q) DESC, h.finished_at DESC LIMIT $3`,
      [query, options.agent ?? null, options.limit ?? 50],
    );
    return rows.map(toEntry);
  }

  async related(entry: HistoryEntry): Promise<HistoryEntry[]> {
    const parent = typeof entry.metadata.in_reply_to === 'string' ? entry.metadata.in_reply_to : null;
    const rows = await this.db.query<PgHistoryRow>(
      `SELECT * FROM history WHERE (in_reply_to = $1 OR task_id = $2) AND NOT (task_id = $1 AND agent_id = $3) ORDER BY finished_at LIMIT 20`,
      [entry.task_id, parent, entry.agent_id],
    );
    return rows.map(toEntry);
  }

  async all(filter: { agent?: string } = {}): Promise<HistoryEntry[]> {
    const rows = await this.db.query<PgHistoryRow>(
      `SELECT * FROM history WHERE ($1::text IS NULL OR agent_id = $1 OR agent_name = $1 OR agent_type = $1) ORDER BY finished_at, seq`,
      [filter.agent ?? null],
    );
    return rows.map(toEntry);
  }

  async stats(filter: { agent?: string; prices?: Readonly<Record<string, ModelPrice>> } = {}): Promise<HistoryStats> {
    const agent = `($1::text IS NULL OR agent_id = $1 OR agent_name = $1 OR agent_type = $1)`;
    const p = [filter.agent ?? null];
    return this.db.tx(
      async (q) => {
        const perAgent = await q<Omit<AgentStats, 'success_rate' | 'median_turn_ms' | 'usage'>>(
          `SELECT agent_id, MAX(agent_name) AS agent_name, MAX(agent_type) AS agent_type, COUNT(*)::int AS total,
             (COUNT(*) FILTER (WHERE status = 'completed'))::int AS completed, (COUNT(*) FILTER (WHERE status = 'failed'))::int AS failed,
             (COUNT(*) FILTER (WHERE status = 'canceled'))::int AS canceled
           FROM history WHERE ${agent} GROUP BY agent_id ORDER BY total DESC, agent_id COLLATE "C"`,
          p,
        );
        const turnRows = await q<{ agent_id: string; turn_ms: string }>(
          `SELECT agent_id, turn_ms FROM history WHERE ${agent} AND status = 'completed' AND turn_ms IS NOT NULL ORDER BY turn_ms`,
          p,
        );
        const turns = new Map<string, number[]>();
        const allTurns: number[] = [];
        for (const r of turnRows) {
          const ms = Number(r.turn_ms);
          allTurns.push(ms);
          turns.set(r.agent_id, [...(turns.get(r.agent_id) ?? []), ms]);
        }
        const [span] = await q<{ oldest: string | null; newest: string | null; bytes: string | null }>(
          `SELECT MIN(finished_at) AS oldest, MAX(finished_at) AS newest, SUM(${PAYLOAD}) AS bytes FROM history WHERE ${agent}`,
          p,
        );
        const usageRows = (
          await q<Record<string, unknown>>(
            `SELECT agent_id, usage, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens FROM history WHERE ${agent} AND input_tokens IS NOT NULL`,
            p,
          )
        ).map((r) => ({
          agent_id: String(r.agent_id),
          usage: (r.usage as string | null) ?? null,
          input_tokens: Number(r.input_tokens),
          output_tokens: Number(r.output_tokens ?? 0),
          cache_read_tokens: Number(r.cache_read_tokens ?? 0),
          cache_write_tokens: Number(r.cache_write_tokens ?? 0),
        })) satisfies UsageRow[];
        const usage = usageStats(usageRows, filter.prices ?? DEFAULT_PRICES);
        return {
          ...summarizeAgents(perAgent, turns, allTurns, usage),
          oldest: span?.oldest ?? null,
          newest: span?.newest ?? null,
          db_bytes: Number(span?.bytes ?? 0),
          usage: usage.total,
        };
      },
      { readOnly: true },
    );
  }

  /**
   * As on SQLite, but sizes are the rows' payload bytes (PostgreSQL reuses the space of deleted
   * rows; it does not shrink the database files), so `--max-size` budgets the history's data.
   */
  async cleanup(options: { days?: number; maxBytes?: number; dryRun?: boolean }): Promise<CleanupResult> {
    checkCleanup(options);
    const cutoff = options.days === undefined ? null : iso(this.clock.now() - options.days * 86_400_000);
    return this.db.tx(
      async (q) => {
        // One cleaner at a time; agents keep recording meanwhile (their new rows are not candidates).
        await q(`SELECT pg_advisory_xact_lock(hashtext('synapse_history_cleanup'))`);
        const rows = (
          await q<{ seq: string; finished_at: string; bytes: string }>(
            `SELECT seq, finished_at, ${PAYLOAD} AS bytes FROM history ORDER BY finished_at DESC, seq DESC`,
          )
        ).map((r) => ({ seq: Number(r.seq), finished_at: r.finished_at, bytes: Number(r.bytes) }));
        const before = rows.reduce((n, r) => n + r.bytes, 0);
        const doomed = pickDoomed(rows, cutoff, options.maxBytes, 1);
        if (!options.dryRun && doomed.seqs.length > 0) await q(`DELETE FROM history WHERE seq = ANY($1::bigint[])`, [doomed.seqs]);
        return {
          dry_run: Boolean(options.dryRun),
          deleted: doomed.seqs.length,
          bytes_before: before,
          bytes_after: before - doomed.estimatedBytes,
          remaining: rows.length - doomed.seqs.length,
        };
      },
      options.dryRun ? { readOnly: true } : {},
    );
  }

  async count(): Promise<number> {
    const [r] = await this.db.query<{ n: number }>(`SELECT COUNT(*)::int AS n FROM history`);
    return r?.n ?? 0;
  }
}

/** `synapse store migrate`: brings the history table to the newest version. */
export function pgHistoryMigrate(url: string, options: { retryForMs?: number } = {}): Promise<{ from: number; to: number }> {
  return migrateComponent(url, 'history', HISTORY_PG_MIGRATIONS, options);
}

/** `synapse store status`: schema version and row count, read-only. */
export function pgHistoryStatus(
  url: string,
  options: { retryForMs?: number } = {},
): Promise<{ schema_version: number; latest_version: number; rows: { entries: number } }> {
  return withPgDb(url, options, async (db) => {
    const version = await db.schemaVersion('history');
    const latest = HISTORY_PG_MIGRATIONS.at(-1)!.version;
    if (version === 0) return { schema_version: 0, latest_version: latest, rows: { entries: 0 } };
    const [r] = await db.query<{ n: number }>(`SELECT COUNT(*)::int AS n FROM history`);
    return { schema_version: version, latest_version: latest, rows: { entries: r?.n ?? 0 } };
  });
}
