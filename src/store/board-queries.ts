import { SynapseError } from '../errors.js';
import type { Sql } from './store-db.js';
import type { BoardTask, TaskRow } from './board-schema.js';
import { pickByPrefix } from './prefix.js';
import { attachDeps, type DepRow } from './board-rules.js';

/** Board queries shared by the TaskBoard methods; each runs inside the caller's transaction. */

const ID_CHARS = /^[0-9a-f-]+$/;

/** Full id for an id or unique prefix; not-found and ambiguous errors list the candidates. */
export function resolve(db: Sql, idOrPrefix: string): string {
  const prefix = idOrPrefix.trim().toLowerCase();
  if (prefix.length === 0 || !ID_CHARS.test(prefix)) {
    throw new SynapseError('task_not_found', `no task matches '${idOrPrefix}' (task ids are uuids; see synapse tasks list)`, { prefix: idOrPrefix });
  }
  // A range over the primary key instead of LIKE (which cannot use the index because it is
  // case-insensitive): ids are lowercase hex and '-', all sorting below '~'.
  const upper = `${prefix}~`;
  const rows = db.prepare(`SELECT id, subject, status FROM tasks WHERE id >= ? AND id < ? ORDER BY id LIMIT 11`).all(prefix, upper) as {
    id: string;
    subject: string;
    status: string;
  }[];
  const total = rows.length > 10 ? (db.prepare(`SELECT COUNT(*) AS n FROM tasks WHERE id >= ? AND id < ?`).get(prefix, upper) as { n: number }).n : rows.length;
  return pickByPrefix(
    prefix,
    rows.map((r) => ({ id: r.id, label: `${r.status}  ${r.subject}` })),
    { what: 'task', notFound: 'task_not_found', ambiguous: 'ambiguous_task', total },
  );
}

export function linkedId(db: Sql, a2aTaskId: string): string | null {
  const row = db.prepare(`SELECT id FROM tasks WHERE a2a_task_id = ?`).get(a2aTaskId) as { id: string } | undefined;
  return row?.id ?? null;
}

export function unfinishedBlockers(db: Sql, id: string): TaskRow[] {
  return db
    .prepare(`SELECT b.* FROM task_deps d JOIN tasks b ON b.id = d.blocked_by WHERE d.task_id = ? AND b.status <> 'completed' ORDER BY b.created_at`)
    .all(id) as TaskRow[];
}

/** Attaches each row's `blocked_by` ids and whether any of them is unfinished. */
export function withDeps(db: Sql, rows: TaskRow[]): BoardTask[] {
  if (rows.length === 0) return [];
  const deps = db
    .prepare(
      `SELECT d.task_id, d.blocked_by, b.status FROM task_deps d JOIN tasks b ON b.id = d.blocked_by
       WHERE d.task_id IN (SELECT value FROM json_each(?)) ORDER BY b.created_at`,
    )
    .all(JSON.stringify(rows.map((r) => r.id))) as DepRow[];
  return attachDeps(rows, deps);
}
