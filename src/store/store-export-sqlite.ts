import fs from 'node:fs';
import path from 'node:path';
import type { Env } from '../config/paths.js';
import { BOARD_MIGRATIONS } from './board-schema.js';
import { FILE_SAFETY_MIGRATIONS } from './file-safety-schema.js';
import { HISTORY_COLUMNS, HISTORY_MIGRATIONS, historyDbPath } from './history-schema.js';
import { projectKey } from '../registry/project.js';
import { normalizeDirPath } from './file-paths.js';
import { MEMORY_MIGRATIONS } from './memory-schema.js';
import { boardDbPath, fileSafetyDbPath, memoryDbPath } from './settings.js';
import { hostName } from '../registry/host.js';
import { openDatabase, type Db, type Migration } from './sqlite.js';
import {
  canonical,
  conflictError,
  emptyRows,
  rowKey,
  TABLES,
  zeroCounts,
  type ExportRows,
  type ImportCounts,
  type LockRowOut,
  type TableName,
} from './store-export-format.js';

/** `synapse store export|import` on the SQLite files under the project's `.synapse/`. */

interface SqliteTable {
  file: 'board' | 'memory' | 'files' | 'history';
  /** Reads every row in the portable shape. */
  select: string;
  /** The existing row with this portable key (one parameter; deps: two). */
  find: string;
  insert: string;
}

/** The three statements of one stored table: read all (in `order`), find by its portable key, insert. */
function sqliteTable(file: SqliteTable['file'], table: string, columns: readonly string[], key: readonly string[], order = ''): SqliteTable {
  const list = columns.join(', ');
  return {
    file,
    select: `SELECT ${list} FROM ${table}${order ? ` ORDER BY ${order}` : ''}`,
    find: `SELECT ${list} FROM ${table} WHERE ${key.map((k) => `${k} = ?`).join(' AND ')}`,
    insert: `INSERT INTO ${table} (${list}) VALUES (${columns.map(() => '?').join(', ')})`,
  };
}

const SQL: Record<TableName, SqliteTable> = {
  board_tasks: sqliteTable('board', 'tasks', Object.keys(TABLES.board_tasks.properties), ['id']),
  board_task_deps: sqliteTable('board', 'task_deps', ['task_id', 'blocked_by'], ['task_id', 'blocked_by']),
  memory_notes: sqliteTable('memory', 'memories', ['id', 'key', 'content', 'tags', 'author', 'created_at', 'updated_at'], ['key']),
  file_locks: sqliteTable('files', 'locks', ['path', 'kind', 'agent_id', 'pid', 'intent', 'locked_at', 'expires_at'], ['path']),
  file_changes: sqliteTable('files', 'changes', ['id', 'path', 'agent_id', 'change_type', 'intent', 'task_id', 'recorded_at'], ['id']),
  // The user's history file holds every project's tasks: an export takes this project's (see exportSqlite).
  history: sqliteTable('history', 'history', HISTORY_COLUMNS, ['task_id', 'agent_id'], 'finished_at, seq'),
};

function files(projectDir: string, env: Env): Record<SqliteTable['file'], { file: string; migrations: Migration[] }> {
  return {
    board: { file: boardDbPath(projectDir), migrations: BOARD_MIGRATIONS },
    memory: { file: memoryDbPath(projectDir, env), migrations: MEMORY_MIGRATIONS },
    files: { file: fileSafetyDbPath(projectDir, env), migrations: FILE_SAFETY_MIGRATIONS },
    history: { file: historyDbPath(env), migrations: HISTORY_MIGRATIONS },
  };
}

/** Stored (SQLite) row → portable row: tags parsed, paths made project-relative, this host named on locks. */
function portable(table: TableName, row: Record<string, unknown>, root: string, host: string): Record<string, unknown> {
  const rel = (p: unknown) => {
    const r = path.relative(root, String(p));
    return r === '' || r.startsWith('..') || path.isAbsolute(r) ? String(p) : r.split(path.sep).join('/');
  };
  if (table === 'memory_notes') return { ...row, tags: JSON.parse(String(row.tags)) as unknown };
  if (table === 'file_locks') return { ...row, path: rel(row.path), host };
  if (table === 'file_changes') return { ...row, path: rel(row.path) };
  if (table === 'history') return { ...row, host };
  return row;
}

/**
 * Portable row → what this SQLite store keeps of it (and so what it exports again): paths made
 * absolute, and a lock of another host loses its pid (this machine cannot check that process; the TTL decides).
 */
function asStored(table: TableName, row: Record<string, unknown>, root: string, host: string): Record<string, unknown> {
  const abs = (p: unknown) => (path.isAbsolute(String(p)) ? String(p) : path.join(root, ...String(p).split('/')));
  if (table === 'file_locks') {
    const lock = row as unknown as LockRowOut;
    return { ...row, path: abs(lock.path), pid: lock.host === host ? lock.pid : null };
  }
  if (table === 'file_changes') return { ...row, path: abs(row.path) };
  if (table === 'memory_notes') return { ...row, tags: JSON.stringify(row.tags) };
  if (table === 'history') {
    const { host: _host, ...rest } = row;
    return rest;
  }
  return row;
}

/** The history entries of agents that worked in this project (its git repository, or the directory). */
function inProject(projectDir: string): (row: Record<string, unknown>) => boolean {
  const project = projectKey(projectDir);
  const seen = new Map<string, boolean>();
  return (row) => {
    const dir = typeof row.working_dir === 'string' ? row.working_dir : '';
    if (dir === '') return false;
    let same = seen.get(dir);
    if (same === undefined) seen.set(dir, (same = projectKey(dir) === project));
    return same;
  };
}

export function exportSqlite(projectDir: string, env: Env): ExportRows {
  const root = normalizeDirPath(projectDir);
  const host = hostName(env);
  const rows = emptyRows();
  const all = files(projectDir, env);
  for (const t of Object.keys(SQL) as TableName[]) {
    const { file, migrations } = all[SQL[t].file];
    if (!fs.existsSync(file)) continue;
    const db = openDatabase(file, migrations);
    try {
      const all = db.prepare(SQL[t].select).all() as Record<string, unknown>[];
      (rows[t] as unknown[]) = (t === 'history' ? all.filter(inProject(projectDir)) : all).map((r) => portable(t, r, root, host));
    } finally {
      db.close();
    }
  }
  return rows;
}

/**
 * Imports every row in one write transaction per file (`BEGIN IMMEDIATE` on each), committed
 * only when every row of every file went in: a conflict or a failed insert rolls all of them back.
 */
export function importSqlite(projectDir: string, env: Env, rows: ExportRows, lines: Map<string, number>): ImportCounts {
  const root = normalizeDirPath(projectDir);
  const host = hostName(env);
  const counts = zeroCounts();
  const all = files(projectDir, env);
  const open = new Map<SqliteTable['file'], Db>();
  const dbFor = (f: SqliteTable['file']): Db => {
    let db = open.get(f);
    if (!db) {
      // The history file holds every conversation: its directory stays private, as HistoryStore makes it.
      if (f === 'history') fs.mkdirSync(path.dirname(all[f].file), { recursive: true, mode: 0o700 });
      db = openDatabase(all[f].file, all[f].migrations);
      open.set(f, db);
      db.exec('BEGIN IMMEDIATE');
    }
    return db;
  };
  try {
    for (const t of Object.keys(SQL) as TableName[]) {
      if (rows[t].length === 0) continue;
      const db = dbFor(SQL[t].file);
      const keys = Object.keys(TABLES[t].properties).filter((k) => !((t === 'file_locks' || t === 'history') && k === 'host'));
      for (const row of rows[t] as Record<string, unknown>[]) {
        const key = rowKey(t, row);
        const line = lines.get(`${t} ${key}`);
        const stored = asStored(t, row, root, host);
        const findArgs =
          t === 'board_task_deps'
            ? [row.task_id, row.blocked_by]
            : t === 'history'
              ? [row.task_id, row.agent_id]
              : [t === 'memory_notes' ? row.key : stored[keys[0]!]];
        const existing = db.prepare(SQL[t].find).get(...findArgs) as Record<string, unknown> | undefined;
        const incoming = canonical(t, portable(t, stored, root, host));
        if (existing) {
          const have = canonical(t, portable(t, existing, root, host));
          if (have !== incoming) throw conflictError(t, key, line, have, incoming);
          counts[t].unchanged++;
          continue;
        }
        try {
          db.prepare(SQL[t].insert).run(...keys.map((k) => stored[k] ?? null));
        } catch (err) {
          throw conflictError(t, key, line, JSON.stringify({ error: (err as Error).message }), incoming);
        }
        counts[t].inserted++;
      }
    }
    for (const db of open.values()) db.exec('COMMIT');
    return counts;
  } catch (err) {
    for (const db of open.values()) if (db.inTransaction) db.exec('ROLLBACK');
    throw err;
  } finally {
    for (const db of open.values()) db.close();
  }
}
