import fs from 'node:fs';
import path from 'node:path';
import type { Env } from '../config/paths.js';
import { BOARD_MIGRATIONS } from './board-schema.js';
import { FILE_SAFETY_MIGRATIONS } from './file-safety-schema.js';
import { HISTORY_MIGRATIONS, historyDbPath } from './history-schema.js';
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

const SQL: Record<TableName, SqliteTable> = {
  board_tasks: {
    file: 'board',
    select: `SELECT ${Object.keys(TABLES.board_tasks.properties).join(', ')} FROM tasks`,
    find: `SELECT ${Object.keys(TABLES.board_tasks.properties).join(', ')} FROM tasks WHERE id = ?`,
    insert: `INSERT INTO tasks (${Object.keys(TABLES.board_tasks.properties).join(', ')}) VALUES (${Object.keys(TABLES.board_tasks.properties)
      .map(() => '?')
      .join(', ')})`,
  },
  board_task_deps: {
    file: 'board',
    select: `SELECT task_id, blocked_by FROM task_deps`,
    find: `SELECT task_id, blocked_by FROM task_deps WHERE task_id = ? AND blocked_by = ?`,
    insert: `INSERT INTO task_deps (task_id, blocked_by) VALUES (?, ?)`,
  },
  memory_notes: {
    file: 'memory',
    select: `SELECT id, key, content, tags, author, created_at, updated_at FROM memories`,
    find: `SELECT id, key, content, tags, author, created_at, updated_at FROM memories WHERE key = ?`,
    insert: `INSERT INTO memories (id, key, content, tags, author, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
  },
  file_locks: {
    file: 'files',
    select: `SELECT path, kind, agent_id, pid, intent, locked_at, expires_at FROM locks`,
    find: `SELECT path, kind, agent_id, pid, intent, locked_at, expires_at FROM locks WHERE path = ?`,
    insert: `INSERT INTO locks (path, kind, agent_id, pid, intent, locked_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
  },
  file_changes: {
    file: 'files',
    select: `SELECT id, path, agent_id, change_type, intent, task_id, recorded_at FROM changes`,
    find: `SELECT id, path, agent_id, change_type, intent, task_id, recorded_at FROM changes WHERE id = ?`,
    insert: `INSERT INTO changes (id, path, agent_id, change_type, intent, task_id, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
  },
  // The user's history file holds every project's tasks: an export takes this project's (see exportSqlite).
  history: {
    file: 'history',
    select: `SELECT task_id, agent_id, agent_name, agent_type, working_dir, sender_id, sender_name, sender_type, input, output, status, status_message, priority, context_id, reply_source, receipt, metadata, created_at, finished_at, duration_ms, turn_ms, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, usage FROM history ORDER BY finished_at, seq`,
    find: `SELECT task_id, agent_id, agent_name, agent_type, working_dir, sender_id, sender_name, sender_type, input, output, status, status_message, priority, context_id, reply_source, receipt, metadata, created_at, finished_at, duration_ms, turn_ms, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, usage FROM history WHERE task_id = ? AND agent_id = ?`,
    insert: `INSERT INTO history (task_id, agent_id, agent_name, agent_type, working_dir, sender_id, sender_name, sender_type, input, output, status, status_message, priority, context_id, reply_source, receipt, metadata, created_at, finished_at, duration_ms, turn_ms, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, usage) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  },
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
