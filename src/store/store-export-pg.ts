import { BOARD_PG_MIGRATIONS } from './board-pg.js';
import { FILE_SAFETY_PG_MIGRATIONS } from './file-safety-pg.js';
import { HISTORY_PG_MIGRATIONS, pgRow } from './history-pg-schema.js';
import { MEMORY_PG_MIGRATIONS } from './memory-pg.js';
import { PgDb, type Query } from './pg-db.js';
import { canonical, conflictError, emptyRows, rowKey, TABLES, zeroCounts, type ExportRows, type ImportCounts, type TableName } from './store-export-format.js';

/** `synapse store export|import` on a PostgreSQL store: the portable rows are the tables' own (paths are already project-relative). */

const TABLE_SQL: Record<TableName, { table: string; key: string[]; identity: boolean }> = {
  board_tasks: { table: 'board_tasks', key: ['id'], identity: false },
  board_task_deps: { table: 'board_task_deps', key: ['task_id', 'blocked_by'], identity: false },
  memory_notes: { table: 'memory_notes', key: ['key'], identity: true },
  file_locks: { table: 'file_locks', key: ['path'], identity: false },
  file_changes: { table: 'file_changes', key: ['id'], identity: true },
  // `seq` is the database's own: rows go in without it, numbered in the file's order (oldest first).
  history: { table: 'history', key: ['task_id', 'agent_id'], identity: false },
};

/** BIGINT columns arrive as text from node-postgres: the portable row has numbers. */
const HISTORY_COUNTS = ['duration_ms', 'turn_ms', 'input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_write_tokens'];
function fromDb(t: TableName, row: Record<string, unknown>): Record<string, unknown> {
  if (t !== 'history') return row;
  const out = { ...row };
  for (const k of HISTORY_COUNTS) out[k] = out[k] === null || out[k] === undefined ? null : Number(out[k]);
  return out;
}

const columns = (t: TableName) => Object.keys(TABLES[t].properties);

async function open(url: string, retryForMs?: number): Promise<PgDb> {
  const db = new PgDb(url, { retryForMs, max: 1 });
  try {
    await db.migrate('board', BOARD_PG_MIGRATIONS);
    await db.migrate('memory', MEMORY_PG_MIGRATIONS);
    await db.migrate('file-safety', FILE_SAFETY_PG_MIGRATIONS);
    await db.migrate('history', HISTORY_PG_MIGRATIONS);
  } catch (err) {
    await db.close();
    throw err;
  }
  return db;
}

export async function exportPg(url: string, options: { retryForMs?: number } = {}): Promise<ExportRows> {
  const db = await open(url, options.retryForMs);
  try {
    // One snapshot of every table.
    return await db.tx(
      async (q) => {
        await q(`SET TRANSACTION ISOLATION LEVEL REPEATABLE READ`);
        const rows = emptyRows();
        for (const t of Object.keys(TABLE_SQL) as TableName[]) {
          (rows[t] as unknown[]) = (await q(`SELECT ${columns(t).join(', ')} FROM ${TABLE_SQL[t].table}`)).map((r) => fromDb(t, r));
        }
        return rows;
      },
      { readOnly: true },
    );
  } finally {
    await db.close();
  }
}

/**
 * Imports every row in one transaction, with the store's tables locked against writers for its
 * length: a row whose key is there with other content refuses the whole import.
 */
export async function importPg(url: string, rows: ExportRows, lines: Map<string, number>, options: { retryForMs?: number } = {}): Promise<ImportCounts> {
  const db = await open(url, options.retryForMs);
  try {
    return await db.tx(async (q) => {
      const counts = zeroCounts();
      await q(
        `LOCK TABLE ${Object.values(TABLE_SQL)
          .map((s) => s.table)
          .join(', ')} IN SHARE ROW EXCLUSIVE MODE`,
      );
      for (const t of Object.keys(TABLE_SQL) as TableName[]) {
        for (const row of rows[t] as Record<string, unknown>[]) await importRow(q, t, row, counts, lines);
        if (TABLE_SQL[t].identity && counts[t].inserted > 0) {
          // Rows came with their ids: new rows must be numbered after them.
          const table = TABLE_SQL[t].table;
          await q(`SELECT setval(pg_get_serial_sequence('${table}', 'id'), (SELECT MAX(id) FROM ${table}))`);
        }
      }
      return counts;
    });
  } finally {
    await db.close();
  }
}

async function importRow(q: Query, t: TableName, row: Record<string, unknown>, counts: ImportCounts, lines: Map<string, number>): Promise<void> {
  const { table, key, identity } = TABLE_SQL[t];
  const cols = columns(t);
  const k = rowKey(t, row);
  const line = lines.get(`${t} ${k}`);
  const incoming = canonical(t, row);
  const [existing] = await q(
    `SELECT ${cols.join(', ')} FROM ${table} WHERE ${key.map((c, i) => `${c} = $${i + 1}`).join(' AND ')}`,
    key.map((c) => row[c]),
  );
  if (existing) {
    const have = canonical(t, fromDb(t, existing));
    if (have !== incoming) throw conflictError(t, k, line, have, incoming);
    counts[t].unchanged++;
    return;
  }
  const values = cols.map((c) => (t === 'memory_notes' && c === 'tags' ? JSON.stringify(row[c]) : (row[c] ?? null)));
  // A history row also keeps the task it answered (from its metadata), for `synapse trace`.
  const extra = t === 'history' ? { in_reply_to: pgRow(row as never, String(row.host)).in_reply_to } : {};
  const names = [...cols, ...Object.keys(extra)];
  try {
    await q(`INSERT INTO ${table} (${names.join(', ')}) ${identity ? 'OVERRIDING SYSTEM VALUE' : ''} VALUES (${names.map((_, i) => `$${i + 1}`).join(', ')})`, [
      ...values,
      ...Object.values(extra),
    ]);
  } catch (err) {
    throw conflictError(t, k, line, JSON.stringify({ error: (err as Error).message }), incoming);
  }
  counts[t].inserted++;
}
