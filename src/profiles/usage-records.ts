import type { TokenCounts } from '../config/pricing.js';

/**
 * The token usage each CLI records itself, one parser per record format (issue 20 §3). Every
 * parser takes whole lines (JSONL) and skips what it cannot read: a garbled line, a record of
 * another kind, a number that is not one. Counts are normalised to `TokenCounts`: `input_tokens`
 * without the cached part (Anthropic's meaning; OpenAI and Gemini count the cached part inside
 * their prompt total, so it is taken out), `output_tokens` with reasoning.
 */

/** Where and in which format a CLI records usage (the profile's `usageLog`); `echo`: the echo agent, in Claude Code's format. */
export type UsageLogKind = 'claude' | 'codex' | 'gemini' | 'opencode' | 'copilot' | 'echo';

/** One model response's tokens, as the CLI recorded it. */
export interface UsageRecord extends TokenCounts {
  model: string | null;
  /** When the CLI says the response came (ms since the epoch), or null when the record has no time. */
  at: number | null;
}

function timeOf(v: unknown): number | null {
  const ms = typeof v === 'string' ? Date.parse(v) : typeof v === 'number' ? v : NaN;
  return Number.isFinite(ms) ? ms : null;
}

/** The usage of one task: the sums, the records summed and the same per model. */
export interface TokenUsage extends TokenCounts {
  records: number;
  by_model: Record<string, TokenCounts>;
}

const n = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.round(v) : 0);
const obj = (v: unknown): Record<string, unknown> | null => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null);

function json(line: string): Record<string, unknown> | null {
  if (!line.startsWith('{')) return null;
  try {
    return obj(JSON.parse(line));
  } catch {
    return null;
  }
}

export const UNKNOWN_MODEL = '(unknown model)';

export function emptyCounts(): TokenCounts {
  return { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0 };
}

function addTo(into: TokenCounts, c: TokenCounts): void {
  into.input_tokens += c.input_tokens;
  into.output_tokens += c.output_tokens;
  into.cache_read_tokens += c.cache_read_tokens;
  into.cache_write_tokens += c.cache_write_tokens;
}

/** The sum of `records` (null when there are none), per model too. */
export function sumUsage(records: readonly UsageRecord[], into: TokenUsage | null = null): TokenUsage | null {
  if (records.length === 0) return into;
  const total: TokenUsage = into ? { ...into, by_model: structuredClone(into.by_model) } : { ...emptyCounts(), records: 0, by_model: {} };
  for (const r of records) {
    addTo(total, r);
    total.records++;
    const model = r.model ?? UNKNOWN_MODEL;
    addTo((total.by_model[model] ??= emptyCounts()), r);
  }
  return total;
}

/**
 * Claude Code's session JSONL (`~/.claude/projects/<cwd slug>/<session id>.jsonl`): an `assistant`
 * line per content block, each with the response's `message.usage`; the lines of one response
 * share `message.id`, so `seen` keeps each response counted once.
 */
export function parseClaudeLines(lines: readonly string[], seen: Set<string>): UsageRecord[] {
  const out: UsageRecord[] = [];
  for (const line of lines) {
    const rec = json(line);
    if (rec?.type !== 'assistant') continue;
    const message = obj(rec.message);
    const usage = obj(message?.usage);
    if (!message || !usage) continue;
    const id = typeof message.id === 'string' ? `${message.id}:${typeof rec.requestId === 'string' ? rec.requestId : ''}` : null;
    if (id !== null) {
      if (seen.has(id)) continue;
      seen.add(id);
    }
    out.push({
      at: timeOf(rec.timestamp),
      model: typeof message.model === 'string' && message.model !== '<synthetic>' ? message.model : null,
      input_tokens: n(usage.input_tokens),
      output_tokens: n(usage.output_tokens),
      cache_read_tokens: n(usage.cache_read_input_tokens),
      cache_write_tokens: n(usage.cache_creation_input_tokens),
    });
  }
  return out.filter((r) => r.input_tokens + r.output_tokens + r.cache_read_tokens + r.cache_write_tokens > 0);
}

/** What a Codex rollout parser carries from one read to the next: the model and the last running total. */
export interface CodexState {
  model: string | null;
  lastTotal: string | null;
}

/**
 * Codex's rollout JSONL (`~/.codex/sessions/YYYY/MM/DD/rollout-….jsonl`): an `event_msg` of type
 * `token_count` after each response, with `info.last_token_usage` (that response) and
 * `info.total_token_usage` (the session's running total: an event repeating the total is a
 * repeat, not a new response). The model comes from the `turn_context` records.
 */
export function parseCodexLines(lines: readonly string[], state: CodexState): UsageRecord[] {
  const out: UsageRecord[] = [];
  for (const line of lines) {
    const rec = json(line);
    const payload = obj(rec?.payload);
    if (!rec || !payload) continue;
    if (rec.type === 'turn_context' && typeof payload.model === 'string') {
      state.model = payload.model;
      continue;
    }
    if (rec.type !== 'event_msg' || payload.type !== 'token_count') continue;
    const info = obj(payload.info);
    const last = obj(info?.last_token_usage);
    if (!info || !last) continue;
    const total = JSON.stringify(info.total_token_usage ?? null);
    if (total !== 'null' && total === state.lastTotal) continue;
    state.lastTotal = total;
    const cached = n(last.cached_input_tokens);
    out.push({
      at: timeOf(rec.timestamp),
      model: state.model,
      input_tokens: Math.max(0, n(last.input_tokens) - cached),
      output_tokens: n(last.output_tokens),
      cache_read_tokens: cached,
      cache_write_tokens: n(last.cache_write_input_tokens),
    });
  }
  return out;
}

/**
 * Gemini CLI's chat JSONL (`~/.gemini/tmp/<project>/chats/session-….jsonl`): a `gemini` record per
 * model answer with `tokens` {input (with the cached part), output, cached, thoughts, tool};
 * thoughts are billed as output, tool-use prompt tokens as input. `seen` holds record ids.
 */
export function parseGeminiLines(lines: readonly string[], seen: Set<string>): UsageRecord[] {
  const out: UsageRecord[] = [];
  for (const line of lines) {
    const rec = json(line);
    if (rec?.type !== 'gemini') continue;
    const tokens = obj(rec.tokens);
    if (!tokens) continue;
    if (typeof rec.id === 'string') {
      if (seen.has(rec.id)) continue;
      seen.add(rec.id);
    }
    const cached = n(tokens.cached);
    out.push({
      at: timeOf(rec.timestamp),
      model: typeof rec.model === 'string' ? rec.model : null,
      input_tokens: Math.max(0, n(tokens.input) - cached) + n(tokens.tool),
      output_tokens: n(tokens.output) + n(tokens.thoughts),
      cache_read_tokens: cached,
      cache_write_tokens: 0,
    });
  }
  return out;
}

/**
 * One row of OpenCode's `message` table (`~/.local/share/opencode/opencode.db`): its `data` JSON,
 * for an assistant message, has `tokens` {input (without the cached part), output, reasoning,
 * cache: {read, write}} and `modelID`. Null for anything else or a message still streaming
 * (no `time.completed`).
 */
export function parseOpencodeMessage(data: string): UsageRecord | null {
  const rec = json(data);
  if (rec?.role !== 'assistant') return null;
  const tokens = obj(rec.tokens);
  const time = obj(rec.time);
  if (!tokens || time?.completed === undefined) return null;
  const cache = obj(tokens.cache);
  const r: UsageRecord = {
    at: timeOf(time.created),
    model: typeof rec.modelID === 'string' ? rec.modelID : null,
    input_tokens: n(tokens.input),
    output_tokens: n(tokens.output) + n(tokens.reasoning),
    cache_read_tokens: n(cache?.read),
    cache_write_tokens: n(cache?.write),
  };
  return r.input_tokens + r.output_tokens + r.cache_read_tokens + r.cache_write_tokens > 0 ? r : null;
}

/**
 * Copilot CLI's session events (`~/.copilot/session-state/<session id>/events.jsonl`): a
 * `session.usage_record` event per model response, `data.usage` {model, inputTokens (with the
 * cached part), outputTokens, cacheReadTokens, cacheWriteTokens}. `seen` holds event ids.
 */
export function parseCopilotLines(lines: readonly string[], seen: Set<string>): UsageRecord[] {
  const out: UsageRecord[] = [];
  for (const line of lines) {
    const rec = json(line);
    if (rec?.type !== 'session.usage_record') continue;
    const usage = obj(obj(rec.data)?.usage);
    if (!usage) continue;
    if (typeof rec.id === 'string') {
      if (seen.has(rec.id)) continue;
      seen.add(rec.id);
    }
    const cached = n(usage.cacheReadTokens);
    out.push({
      at: timeOf(rec.timestamp),
      model: typeof usage.model === 'string' ? usage.model : null,
      input_tokens: Math.max(0, n(usage.inputTokens) - cached),
      output_tokens: n(usage.outputTokens),
      cache_read_tokens: cached,
      cache_write_tokens: n(usage.cacheWriteTokens),
    });
  }
  return out;
}
