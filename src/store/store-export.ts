import fs from 'node:fs';
import path from 'node:path';
import { iso } from '../clock.js';
import type { Env } from '../config/paths.js';
import { SynapseError } from '../errors.js';
import { boardDbPath } from './settings.js';
import { formatExport, parseExport, TABLE_NAMES, type ExportRows, type ImportCounts, type TableName } from './store-export-format.js';
import { storeTarget, type StoreTarget } from './store-url.js';

/**
 * `synapse store export|import` (issue 22): the whole shared store (board, dependencies, memory,
 * file locks and change records) to a portable JSON-lines file and back, between backends
 * (SQLite → PostgreSQL for a team that grows, and back). The format is in store-export-format.ts.
 *
 * Import is all or nothing: every line is checked first (a bad one is reported by its line
 * number), then every row goes in within one transaction. It is idempotent: a row already there
 * with the same content is counted as unchanged; one whose key is there with other content
 * refuses the whole import (`conflict`, naming the line).
 */

interface StoreOptions {
  env: Env;
  target?: StoreTarget;
  retryForMs?: number;
}

export interface ExportResult {
  backend: 'sqlite' | 'postgres';
  location: string;
  file: string;
  rows: Record<TableName, number>;
}

export interface ImportResult {
  backend: 'sqlite' | 'postgres';
  location: string;
  file: string;
  tables: ImportCounts;
}

async function readRows(projectDir: string, t: StoreTarget, o: StoreOptions): Promise<ExportRows> {
  if (t.backend === 'postgres') return (await import('./store-export-pg.js')).exportPg(t.url, { retryForMs: o.retryForMs });
  return (await import('./store-export-sqlite.js')).exportSqlite(projectDir, o.env);
}

const where = (projectDir: string, t: StoreTarget) => (t.backend === 'sqlite' ? path.dirname(boardDbPath(projectDir)) : t.shown);

/** The store as the file's text (for `-`, standard output) and the rows per table. */
export async function exportStore(projectDir: string, o: StoreOptions): Promise<{ text: string; result: Omit<ExportResult, 'file'> }> {
  const t = o.target ?? storeTarget(projectDir, o.env);
  const rows = await readRows(projectDir, t, o);
  const counts = Object.fromEntries(TABLE_NAMES.map((n) => [n, rows[n].length])) as Record<TableName, number>;
  return { text: formatExport(rows, t.backend, iso(Date.now())), result: { backend: t.backend, location: where(projectDir, t), rows: counts } };
}

/** Writes the export to `file` (mode 0600: it holds the team's board), replacing it whole or not at all. */
export async function exportStoreToFile(projectDir: string, file: string, o: StoreOptions): Promise<ExportResult> {
  const { text, result } = await exportStore(projectDir, o);
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    fs.writeFileSync(tmp, text, { mode: 0o600 });
    fs.renameSync(tmp, file);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw new SynapseError('invalid_input', `cannot write ${file}: ${(err as Error).message}`, { file });
  }
  return { ...result, file };
}

export async function importStore(projectDir: string, file: string, text: string, o: StoreOptions): Promise<ImportResult> {
  const t = o.target ?? storeTarget(projectDir, o.env);
  const { rows, lines } = parseExport(text, file);
  const tables =
    t.backend === 'postgres'
      ? await (await import('./store-export-pg.js')).importPg(t.url, rows, lines, { retryForMs: o.retryForMs })
      : (await import('./store-export-sqlite.js')).importSqlite(projectDir, o.env, rows, lines);
  return { backend: t.backend, location: where(projectDir, t), file, tables };
}
