import { Type, type Static, type TSchema } from 'typebox';
import { Value } from 'typebox/value';
import { SynapseError } from '../errors.js';

/**
 * The portable store file of `synapse store export|import` (issue 22): JSON lines. Line 1 is a
 * header, `{"format":"synapse-store","version":1,"exported_at":"…","backend":"sqlite"}`; every
 * other line is one row, `{"table":"board_tasks","row":{…}}`. Rows are the same on both backends:
 * timestamps as ISO text, memory tags as an array, file paths relative to the project root ('/'
 * separators; absolute only for a change record outside it), and a lock's `host` (the machine
 * its pid runs on). Every line is checked against these schemas before anything is written.
 */

const EXPORT_FORMAT = 'synapse-store';
const EXPORT_VERSION = 1;

const Text = Type.String({ maxLength: 1_000_000 });
const Id = Type.String({ minLength: 1, maxLength: 200 });
const Time = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?Z$' });
const Maybe = <T extends TSchema>(s: T) => Type.Union([s, Type.Null()]);
const Int = Type.Integer({ minimum: 1, maximum: 2_147_483_647 });

const TaskRowSchema = Type.Object(
  {
    id: Id,
    subject: Text,
    description: Text,
    status: Type.Union([Type.Literal('pending'), Type.Literal('in_progress'), Type.Literal('completed'), Type.Literal('failed')]),
    priority: Type.Integer({ minimum: 1, maximum: 5 }),
    created_by: Maybe(Text),
    assignee: Maybe(Text),
    claimed_by: Maybe(Text),
    group_id: Maybe(Text),
    group_title: Maybe(Text),
    plan_id: Maybe(Text),
    component: Maybe(Text),
    milestone: Maybe(Text),
    external_ref: Maybe(Text),
    a2a_task_id: Maybe(Text),
    fail_reason: Maybe(Text),
    created_at: Time,
    updated_at: Time,
    completed_at: Maybe(Time),
  },
  { additionalProperties: false },
);

const DepRowSchema = Type.Object({ task_id: Id, blocked_by: Id }, { additionalProperties: false });

const NoteRowSchema = Type.Object(
  {
    id: Int,
    key: Type.String({ minLength: 1, maxLength: 10_000 }),
    content: Text,
    tags: Type.Array(Type.String({ maxLength: 1000 }), { maxItems: 1000 }),
    author: Maybe(Text),
    created_at: Time,
    updated_at: Time,
  },
  { additionalProperties: false },
);

const LockRowSchema = Type.Object(
  {
    path: Type.String({ minLength: 1, maxLength: 4096 }),
    kind: Type.Union([Type.Literal('file'), Type.Literal('tree')]),
    agent_id: Id,
    host: Type.String({ minLength: 1, maxLength: 255 }),
    pid: Maybe(Int),
    intent: Maybe(Text),
    locked_at: Time,
    expires_at: Time,
  },
  { additionalProperties: false },
);

const ChangeRowSchema = Type.Object(
  {
    id: Int,
    path: Type.String({ minLength: 1, maxLength: 4096 }),
    agent_id: Id,
    change_type: Type.Union([Type.Literal('create'), Type.Literal('modify'), Type.Literal('delete')]),
    intent: Maybe(Text),
    task_id: Maybe(Text),
    recorded_at: Time,
  },
  { additionalProperties: false },
);

/** A history text: up to the 1,000,000 characters history keeps, plus its truncation note. */
const HistoryText = Type.String({ maxLength: 1_100_000 });
const Count = Maybe(Type.Integer({ minimum: 0 }));

/**
 * A finished task in the history: the SQLite row without its local `seq`, and the host that
 * recorded it (an SQLite export names this machine; an SQLite import keeps no host).
 */
const HistoryRowSchema = Type.Object(
  {
    task_id: Id,
    agent_id: Id,
    agent_name: Maybe(Text),
    agent_type: Type.String({ minLength: 1, maxLength: 200 }),
    working_dir: Maybe(Type.String({ maxLength: 4096 })),
    host: Type.String({ minLength: 1, maxLength: 255 }),
    sender_id: Maybe(Text),
    sender_name: Maybe(Text),
    sender_type: Maybe(Text),
    input: HistoryText,
    output: HistoryText,
    status: Type.String({ minLength: 1, maxLength: 50 }),
    status_message: Maybe(Text),
    priority: Type.Integer({ minimum: 1, maximum: 5 }),
    context_id: Maybe(Text),
    reply_source: Maybe(Text),
    receipt: Text,
    metadata: HistoryText,
    created_at: Time,
    finished_at: Time,
    duration_ms: Count,
    turn_ms: Count,
    input_tokens: Count,
    output_tokens: Count,
    cache_read_tokens: Count,
    cache_write_tokens: Count,
    usage: Maybe(Text),
  },
  { additionalProperties: false },
);

export type LockRowOut = Static<typeof LockRowSchema>;
type HistoryRowOut = Static<typeof HistoryRowSchema>;

/** The tables, in the order they are written and imported (a dependency after both its tasks). */
export const TABLES = {
  board_tasks: TaskRowSchema,
  board_task_deps: DepRowSchema,
  memory_notes: NoteRowSchema,
  file_locks: LockRowSchema,
  file_changes: ChangeRowSchema,
  history: HistoryRowSchema,
} as const;

export type TableName = keyof typeof TABLES;
export const TABLE_NAMES = Object.keys(TABLES) as TableName[];

export interface ExportRows {
  board_tasks: Static<typeof TaskRowSchema>[];
  board_task_deps: Static<typeof DepRowSchema>[];
  memory_notes: Static<typeof NoteRowSchema>[];
  file_locks: LockRowOut[];
  file_changes: Static<typeof ChangeRowSchema>[];
  history: HistoryRowOut[];
}

export const emptyRows = (): ExportRows => ({ board_tasks: [], board_task_deps: [], memory_notes: [], file_locks: [], file_changes: [], history: [] });

/** The key a row is known by: the same key in the target with other content is a conflict. */
export function rowKey(table: TableName, row: Record<string, unknown>): string {
  if (table === 'board_task_deps') return `${String(row.task_id)} ${String(row.blocked_by)}`;
  if (table === 'memory_notes') return String(row.key);
  if (table === 'file_locks') return String(row.path);
  if (table === 'history') return `${String(row.task_id)} ${String(row.agent_id)}`;
  return String(row.id);
}

/** A row as one canonical JSON text (keys in schema order), for writing and for comparing. */
export function canonical(table: TableName, row: Record<string, unknown>): string {
  const keys = Object.keys(TABLES[table].properties);
  return JSON.stringify(Object.fromEntries(keys.map((k) => [k, row[k] ?? null])));
}

const HeaderSchema = Type.Object({
  format: Type.Literal(EXPORT_FORMAT),
  version: Type.Literal(EXPORT_VERSION),
  exported_at: Type.String(),
  backend: Type.Union([Type.Literal('sqlite'), Type.Literal('postgres')]),
});

function bad(file: string, line: number, why: string): SynapseError {
  return new SynapseError('invalid_input', `${file} line ${line}: ${why}; nothing was imported`, { file, line });
}

function firstError(schema: TSchema, data: unknown): string | null {
  const e = Value.Errors(schema, data)[0];
  if (!e) return null;
  return e.instancePath ? `${e.instancePath} ${e.message}` : e.message;
}

/** Parses and checks a whole store file; the first bad line is reported by number, before anything is written. */
export function parseExport(text: string, file: string): { rows: ExportRows; lines: Map<string, number> } {
  const rows = emptyRows();
  /** `table key` → line number, for conflict messages. */
  const lines = new Map<string, number>();
  const all = text.split('\n');
  if (all.at(-1) === '') all.pop();
  if (all.length === 0) throw bad(file, 1, 'the file is empty (expected a synapse-store header line)');
  all.forEach((raw, i) => {
    const n = i + 1;
    let data: unknown;
    try {
      data = JSON.parse(raw);
    } catch (err) {
      throw bad(file, n, `not JSON (${(err as Error).message})`);
    }
    if (n === 1) {
      const why = firstError(HeaderSchema, data);
      if (why) throw bad(file, n, `not a synapse-store export header (${why}); expected {"format":"synapse-store","version":1,…}`);
      return;
    }
    const { table, row } = (data ?? {}) as { table?: unknown; row?: unknown };
    if (typeof table !== 'string' || !(table in TABLES)) throw bad(file, n, `unknown table ${JSON.stringify(table)} (one of ${TABLE_NAMES.join(', ')})`);
    const t = table as TableName;
    if (Object.keys(data as object).some((k) => k !== 'table' && k !== 'row')) throw bad(file, n, 'a line holds only "table" and "row"');
    const why = firstError(TABLES[t], row);
    if (why) throw bad(file, n, `${t} row: ${why}`);
    const key = `${t} ${rowKey(t, row as Record<string, unknown>)}`;
    if (lines.has(key)) throw bad(file, n, `${t} row ${rowKey(t, row as Record<string, unknown>)} appears twice (first on line ${lines.get(key)})`);
    lines.set(key, n);
    (rows[t] as unknown[]).push(row);
  });
  return { rows, lines };
}

/** One order whichever backend the rows came from: by id for numbered rows, else by key in code-point order. */
function sortedRows<T>(table: TableName, rows: T[]): T[] {
  const numbered = table === 'memory_notes' || table === 'file_changes';
  const key = (r: T) => rowKey(table, r as Record<string, unknown>);
  return [...rows].sort((a, b) => {
    if (table === 'history') {
      // Oldest first, so an import numbers them in the order they finished.
      const x = (a as { finished_at: string }).finished_at;
      const y = (b as { finished_at: string }).finished_at;
      if (x !== y) return x < y ? -1 : 1;
    }
    if (numbered) return Number((a as { id: number }).id) - Number((b as { id: number }).id);
    const x = key(a);
    const y = key(b);
    return x < y ? -1 : x > y ? 1 : 0;
  });
}

/** The store file's text: the header, then every row of every table in table order. */
export function formatExport(rows: ExportRows, backend: 'sqlite' | 'postgres', exportedAt: string): string {
  const out = [JSON.stringify({ format: EXPORT_FORMAT, version: EXPORT_VERSION, exported_at: exportedAt, backend })];
  for (const t of TABLE_NAMES)
    for (const row of sortedRows(t, rows[t] as unknown[])) out.push(`{"table":${JSON.stringify(t)},"row":${canonical(t, row as Record<string, unknown>)}}`);
  return `${out.join('\n')}\n`;
}

/** Per table: rows added, and rows already there with the same content. */
export type ImportCounts = Record<TableName, { inserted: number; unchanged: number }>;

export const zeroCounts = (): ImportCounts => Object.fromEntries(TABLE_NAMES.map((t) => [t, { inserted: 0, unchanged: 0 }])) as ImportCounts;

/** Refuses an import row whose key is there already with other content. */
export function conflictError(table: TableName, key: string, line: number | undefined, existing: string, incoming: string): SynapseError {
  return new SynapseError(
    'conflict',
    `line ${line ?? '?'}: ${table} ${key} is already in the store with other content; nothing was imported (import into an empty store, or remove the row first)`,
    { table, key, line, existing: JSON.parse(existing), incoming: JSON.parse(incoming) },
  );
}
