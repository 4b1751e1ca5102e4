import type { HistoryEntry } from './history-schema.js';

export type ExportFormat = 'json' | 'csv';

/** CSV columns, in order; receipt and metadata go in as JSON text. */
const CSV_COLUMNS = [
  'task_id',
  'agent_id',
  'agent_name',
  'agent_type',
  'sender_id',
  'sender_name',
  'sender_type',
  'status',
  'status_message',
  'priority',
  'reply_source',
  'created_at',
  'finished_at',
  'duration_ms',
  'turn_ms',
  'input',
  'output',
  'receipt',
  'metadata',
] as const;

/** RFC 4180: quote a field when it holds a comma, quote or line break; double the quotes. */
export function csvField(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text =
    typeof value === 'string'
      ? value
      : typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint'
        ? String(value)
        : (JSON.stringify(value) ?? '');
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

function csvRow(e: HistoryEntry): string {
  return CSV_COLUMNS.map((c) => csvField(e[c])).join(',');
}

/**
 * Writes entries one by one (a big history never sits in memory as one string): JSON as an
 * array of entries, CSV with a header line. Returns how many entries were written.
 */
export function writeExport(entries: Iterable<HistoryEntry>, format: ExportFormat, write: (chunk: string) => void): number {
  let n = 0;
  if (format === 'csv') {
    write(`${CSV_COLUMNS.join(',')}\r\n`);
    for (const e of entries) {
      write(`${csvRow(e)}\r\n`);
      n++;
    }
    return n;
  }
  write('[');
  for (const e of entries) {
    write(`${n === 0 ? '\n' : ',\n'}${JSON.stringify(e)}`);
    n++;
  }
  write(n === 0 ? ']\n' : '\n]\n');
  return n;
}
