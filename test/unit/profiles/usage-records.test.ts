import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  parseClaudeLines,
  parseCodexLines,
  parseCopilotLines,
  parseGeminiLines,
  parseOpencodeMessage,
  sumUsage,
  type UsageRecord,
} from '../../../src/profiles/usage-records.js';
import { MOCK_USAGE } from '../../support/mock-model-server.mjs';

/**
 * Each CLI's usage records, as the real CLIs wrote them in this sandbox against the mock model
 * server (test/fixtures/usage/, captured by running them under the e2e harness): a start-up turn
 * and two messages, each one model response reporting MOCK_USAGE.
 */

const FIXTURES = path.join(import.meta.dirname, '../../fixtures/usage');
const lines = (name: string) => fs.readFileSync(path.join(FIXTURES, name), 'utf8').split('\n').filter(Boolean);
const counts = (r: UsageRecord) => [r.input_tokens, r.output_tokens, r.cache_read_tokens, r.cache_write_tokens];
const mock = (cacheWrite = 0) => [MOCK_USAGE.input, MOCK_USAGE.output, MOCK_USAGE.cacheRead, cacheWrite];

describe('usage records of the real CLIs', () => {
  it('Claude Code 2.1.197 session JSONL: one record per response (message.usage), model and time from the line', () => {
    const records = parseClaudeLines(lines('claude-session.jsonl'), new Set());
    expect(records.map(counts)).toEqual([mock(MOCK_USAGE.cacheWrite), mock(MOCK_USAGE.cacheWrite), mock(MOCK_USAGE.cacheWrite)]);
    expect(records.every((r) => r.model === 'claude-opus-4-8' && typeof r.at === 'number')).toBe(true);
  });

  it('Claude Code: the lines of one response (same message.id) count once, also across reads', () => {
    const all = lines('claude-session.jsonl');
    const assistant = all.find((l) => l.includes('"type":"assistant"'))!;
    const seen = new Set<string>();
    expect(parseClaudeLines([assistant, assistant], seen)).toHaveLength(1);
    expect(parseClaudeLines([assistant], seen)).toHaveLength(0);
  });

  it('Codex CLI 0.171.0 rollout: token_count events (last_token_usage), the cached part taken out of input, the model from turn_context', () => {
    const state = { model: null, lastTotal: null };
    const records = parseCodexLines(lines('codex-rollout.jsonl'), state);
    expect(records.map(counts)).toEqual([mock(), mock(), mock()]);
    expect(records[0]!.model).toBe(state.model);
    expect(typeof state.model).toBe('string');
    // A token_count repeating the running total is the same response again.
    const again = lines('codex-rollout.jsonl').filter((l) => l.includes('"token_count"'));
    expect(parseCodexLines([again.at(-1)!], state)).toEqual([]);
  });

  it('Gemini CLI 0.61.0 chat JSONL: `gemini` records with tokens, cached part taken out of input, each id once', () => {
    const seen = new Set<string>();
    const records = parseGeminiLines(lines('gemini-chat.jsonl'), seen);
    expect(records.map(counts)).toEqual([mock(), mock(), mock()]);
    expect(records[0]!.model).toBe('gemini-3.1-pro-preview');
    expect(parseGeminiLines(lines('gemini-chat.jsonl'), seen)).toEqual([]);
  });

  it('Copilot CLI 1.0.102 events.jsonl: session.usage_record events, cached part taken out of input', () => {
    const records = parseCopilotLines(lines('copilot-events.jsonl'), new Set());
    expect(records.map(counts)).toEqual([mock(), mock(), mock()]);
    expect(records[0]!.model).toBe('claude-sonnet-4.6');
  });

  it('OpenCode 1.18.33 message rows: completed assistant messages only (the one still streaming has no usage yet)', () => {
    const rows = lines('opencode-messages.jsonl').map((l) => JSON.parse(l) as { data: string });
    const records = rows.map((r) => parseOpencodeMessage(r.data));
    expect(records.filter((r) => r !== null).map((r) => counts(r))).toEqual([mock(), mock()]);
    expect(records.filter((r) => r !== null)[0]!.model).toBe('mock-model');
  });

  it('skips garbled lines, other record kinds and values that are not counts', () => {
    const junk = ['', '{', 'not json', '[1,2]', '{"type":"assistant"}', '{"type":"assistant","message":{"usage":"x"}}', '\u0000'];
    expect(parseClaudeLines(junk, new Set())).toEqual([]);
    expect(parseCodexLines([...junk, '{"type":"event_msg","payload":{"type":"token_count","info":null}}'], { model: null, lastTotal: null })).toEqual([]);
    expect(parseGeminiLines([...junk, '{"type":"gemini","tokens":null}'], new Set())).toEqual([]);
    expect(parseCopilotLines([...junk, '{"type":"session.usage_record","data":{}}'], new Set())).toEqual([]);
    expect(parseOpencodeMessage('{')).toBeNull();
    const odd = parseClaudeLines(
      ['{"type":"assistant","message":{"id":"m","usage":{"input_tokens":-5,"output_tokens":"7","cache_read_input_tokens":2.6}}}'],
      new Set(),
    );
    expect(odd.map(counts)).toEqual([[0, 0, 3, 0]]);
  });

  it('sums records per task and per model', () => {
    const r = (model: string | null, input: number): UsageRecord => ({
      model,
      at: null,
      input_tokens: input,
      output_tokens: 1,
      cache_read_tokens: 2,
      cache_write_tokens: 3,
    });
    const once = sumUsage([r('a', 10), r('b', 5)]);
    const total = sumUsage([r(null, 1)], once);
    expect(total).toEqual({
      input_tokens: 16,
      output_tokens: 3,
      cache_read_tokens: 6,
      cache_write_tokens: 9,
      records: 3,
      by_model: {
        a: { input_tokens: 10, output_tokens: 1, cache_read_tokens: 2, cache_write_tokens: 3 },
        b: { input_tokens: 5, output_tokens: 1, cache_read_tokens: 2, cache_write_tokens: 3 },
        '(unknown model)': { input_tokens: 1, output_tokens: 1, cache_read_tokens: 2, cache_write_tokens: 3 },
      },
    });
    expect(once!.records).toBe(2);
    expect(sumUsage([])).toBeNull();
  });
});
