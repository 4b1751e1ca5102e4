import type { FileChange } from '../../store/file-safety-schema.js';
import type { HistoryEntry, HistoryStats } from '../../store/history-schema.js';
import { formatDuration } from '../../store/duration.js';
import { preview, renderTable } from '../table.js';

/** Human renderings of history entries for `synapse history …` and `synapse trace`. */

const ms = (v: number | null | undefined) => (v === null || v === undefined ? '-' : formatDuration(v));
const pct = (v: number | null) => (v === null ? '-' : `${(v * 100).toFixed(1)}%`);

function who(id: string | null, name: string | null, type?: string | null): string {
  if (!id && !name) return '(unknown: a person or a script)';
  const label = name && name !== id ? `${name} (${id ?? '?'}${type ? `, ${type}` : ''})` : `${id ?? name}${type ? ` (${type})` : ''}`;
  return label;
}

function agentLabel(e: HistoryEntry): string {
  return e.agent_name ?? e.agent_id;
}

function senderLabel(e: HistoryEntry): string {
  return who(e.sender_id, e.sender_name, e.sender_type);
}

const REPLY_SOURCES: Record<string, string> = {
  reply: 'reply (answered with synapse reply)',
  output: 'output (the CLI went idle without a reply; its output was captured)',
};

function replySourceLabel(source: string | null): string {
  return source ? (REPLY_SOURCES[source] ?? source) : '-';
}

export function entryTable(entries: HistoryEntry[]): string {
  // Entries of a PostgreSQL store name the host that recorded them (the team's history across hosts).
  const hosts = entries.some((e) => e.host !== undefined);
  return renderTable(
    ['TASK', 'AGENT', ...(hosts ? ['HOST'] : []), 'STATUS', 'FROM', 'FINISHED', 'TURN', 'INPUT'],
    entries.map((e) => [
      e.task_id.slice(0, 8),
      agentLabel(e),
      ...(hosts ? [e.host ?? '-'] : []),
      e.status,
      e.sender_name ?? e.sender_id ?? '-',
      e.finished_at.replace(/\.\d+Z$/, 'Z'),
      ms(e.turn_ms),
      preview(e.input, 50),
    ]),
  );
}

/** Each receipt step with its time and the delay since the message was queued. */
function receiptLines(e: HistoryEntry): string[] {
  const r = e.receipt;
  const start = Date.parse(r.queued_at);
  const steps: Array<[string, string | undefined]> = [
    ['queued', r.queued_at],
    ['delivered', r.delivered_at],
    ['answered', r.answered_at],
    ['failed', r.failed_at],
    ['canceled', r.canceled_at],
  ];
  return steps
    .filter((s): s is [string, string] => typeof s[1] === 'string')
    .map(([k, at]) => {
      const delta = Date.parse(at) - start;
      return `${k.padEnd(10)}${at}${k !== 'queued' && Number.isFinite(delta) ? `  (+${formatDuration(delta)})` : ''}`;
    });
}

function section(title: string, text: string): string {
  return `\n── ${title} ${'─'.repeat(Math.max(3, 60 - title.length))}\n${text.length > 0 ? text : '(empty)'}`;
}

export function describeEntry(e: HistoryEntry): string {
  const lines = [
    `task:        ${e.task_id}`,
    `agent:       ${who(e.agent_id, e.agent_name, e.agent_type)}`,
    ...(e.host !== undefined ? [`host:        ${e.host}`] : []),
    `from:        ${senderLabel(e)}`,
    `status:      ${e.status}${e.status_message ? ` (${e.status_message})` : ''}`,
    `priority:    ${e.priority}`,
    `reply:       ${replySourceLabel(e.reply_source)}`,
    `created:     ${e.created_at}`,
    `finished:    ${e.finished_at}`,
    `took:        ${ms(e.duration_ms)} in all, ${ms(e.turn_ms)} in the agent's turn`,
    `receipt:     ${e.receipt.state}`,
    ...receiptLines(e).map((l) => `  ${l}`),
  ];
  if (e.working_dir) lines.splice(2, 0, `working dir: ${e.working_dir}`);
  return [lines.join('\n'), section('input', e.input), section('output', e.output)].join('\n');
}

export function statsText(s: HistoryStats): string {
  const head = [
    `tasks:        ${s.total} (${s.completed} completed, ${s.failed} failed, ${s.canceled} canceled)`,
    `success rate: ${pct(s.success_rate)}`,
    `median turn:  ${ms(s.median_turn_ms)} (completed tasks)`,
    `period:       ${s.oldest ?? '-'} … ${s.newest ?? '-'}`,
    `database:     ${(s.db_bytes / 1024 / 1024).toFixed(2)} MB`,
  ];
  if (s.agents.length === 0) return head.join('\n');
  const table = renderTable(
    ['AGENT', 'TYPE', 'TASKS', 'COMPLETED', 'FAILED', 'CANCELED', 'SUCCESS', 'MEDIAN TURN'],
    s.agents.map((a) => [
      a.agent_name ? `${a.agent_name} (${a.agent_id})` : a.agent_id,
      a.agent_type,
      String(a.total),
      String(a.completed),
      String(a.failed),
      String(a.canceled),
      pct(a.success_rate),
      ms(a.median_turn_ms),
    ]),
  );
  const usage = s.usage ? `\n\n${usageText(s)}` : '';
  return `${head.join('\n')}\n\n${table}${usage}`;
}

const tokens = (n: number) => n.toLocaleString('en-US');
const usd = (v: number | null) => (v === null ? '-' : `$${v.toFixed(v < 1 ? 4 : 2)}`);

/** The TOKEN USAGE section: per agent, only for agents whose tasks recorded tokens. */
function usageText(s: HistoryStats): string {
  const rows = s.agents.filter((a) => a.usage !== null);
  const table = renderTable(
    ['AGENT', 'INPUT', 'OUTPUT', 'CACHE READ', 'CACHE WRITE', 'TASKS', 'EST. COST'],
    rows.map((a) => {
      const u = a.usage!;
      return [
        a.agent_name ? `${a.agent_name} (${a.agent_id})` : a.agent_id,
        tokens(u.input_tokens),
        tokens(u.output_tokens),
        tokens(u.cache_read_tokens),
        tokens(u.cache_write_tokens),
        String(u.tasks),
        usd(u.estimated_cost_usd),
      ];
    }),
  );
  const total = s.usage!;
  const notes = [
    `total: ${tokens(total.input_tokens)} input, ${tokens(total.output_tokens)} output, ${tokens(total.cache_read_tokens)} cache read, ${tokens(total.cache_write_tokens)} cache write tokens in ${total.tasks} task(s); estimated cost ${usd(total.estimated_cost_usd)}`,
    'costs are estimates from the price table (settings `pricing`, US dollars per million tokens)',
  ];
  if (total.unpriced_models.length > 0) notes.push(`no price for: ${total.unpriced_models.join(', ')} (add them under \`pricing\` in settings)`);
  return `── TOKEN USAGE ${'─'.repeat(46)}\n${table}\n${notes.join('\n')}`;
}

export interface Trace {
  /** `history`: a finished task; `live`: asked from the running agent that holds it. */
  source: 'history' | 'live';
  entry: HistoryEntry;
  file_changes: FileChange[];
  related: HistoryEntry[];
  warnings: string[];
}

export function traceText(t: Trace): string {
  const e = t.entry;
  const lines = [
    `task ${e.task_id} on ${who(e.agent_id, e.agent_name, e.agent_type)}${t.source === 'live' ? '  [live: not finished yet]' : ''}`,
    `  from      ${senderLabel(e)}`,
    ...receiptLines(e).map((l) => `  ${l}`),
    `  status    ${e.status}${e.status_message ? ` (${e.status_message})` : ''}`,
    `  reply     ${replySourceLabel(e.reply_source)}`,
  ];
  if (typeof e.metadata.in_reply_to === 'string') lines.push(`  answers   ${e.metadata.in_reply_to}`);
  const out = [lines.join('\n'), section('message', e.input), section('answer', e.output)];
  const changes = t.file_changes.map((c) => `${c.recorded_at}  ${c.change_type.padEnd(6)}  ${c.path}  by ${c.agent_id}${c.intent ? `  "${c.intent}"` : ''}`);
  out.push(section(`file changes (${t.file_changes.length})`, changes.length ? changes.join('\n') : 'none recorded with this task id'));
  if (t.related.length > 0) {
    out.push(section('related', t.related.map((r) => `${r.task_id.slice(0, 8)}  ${agentLabel(r)}  ${r.status}  ${preview(r.input, 60)}`).join('\n')));
  }
  for (const w of t.warnings) out.push(`\nnote: ${w}`);
  return out.join('\n');
}
