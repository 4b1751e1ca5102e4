import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Task } from '../../../src/agent-api/task.js';
import { systemClock } from '../../../src/clock.js';
import { costOf, priceFor, priceTable, DEFAULT_PRICES } from '../../../src/config/pricing.js';
import type { TokenUsage } from '../../../src/profiles/usage-records.js';
import { claudeProjectDir, usageSource } from '../../../src/runtime/usage-sources.js';
import { UsageTracker } from '../../../src/runtime/usage-tracker.js';

/** The tracker over real files in a temp HOME, laid out as Claude Code lays out its sessions. */

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function setup(sessionId: string | null = null) {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'synapse-usage-'));
  dirs.push(home);
  const cwd = path.join(home, 'project');
  const env = { HOME: home };
  const dir = claudeProjectDir(cwd, env);
  fs.mkdirSync(dir, { recursive: true });
  const attached: Array<[string, TokenUsage]> = [];
  const source = usageSource({ kind: 'claude', cwd, env, sessionId: () => sessionId, startedAtMs: Date.now(), now: () => Date.now() });
  const tracker = new UsageTracker({ source, clock: systemClock, log: () => undefined, attach: (id, u) => attached.push([id, structuredClone(u)]) });
  return { dir, attached, tracker };
}

let n = 0;
function record(file: string, input: number, opts: { at?: number; id?: string; text?: string } = {}): void {
  const lines = [];
  if (opts.text) lines.push(JSON.stringify({ type: 'user', message: { role: 'user', content: opts.text } }));
  lines.push(
    JSON.stringify({
      type: 'assistant',
      timestamp: new Date(opts.at ?? Date.now()).toISOString(),
      message: {
        id: opts.id ?? `msg_${++n}`,
        model: 'claude-sonnet-4-5',
        usage: { input_tokens: input, output_tokens: 1, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
      },
    }),
  );
  fs.appendFileSync(file, `${lines.join('\n')}\n`);
}

const task = (id: string, text = `message of ${id}`) => ({ id, message: { role: 'user', parts: [{ type: 'text', text }] } }) as unknown as Task;

describe('UsageTracker', () => {
  it("attributes the records written during a task's turn to it, and nothing written before", () => {
    const { dir, attached, tracker } = setup();
    const file = path.join(dir, 's1.jsonl');
    record(file, 999); // an earlier turn
    tracker.begin(task('t1'));
    record(file, 10);
    record(file, 5);
    tracker.end('t1');
    expect(attached.at(-1)).toEqual(['t1', expect.objectContaining({ input_tokens: 15, records: 2 })]);
    // A record written after the turn looked over (read once more later, or when the next task starts).
    record(file, 7);
    tracker.begin(task('t2'));
    expect(attached.at(-1)).toEqual(['t1', expect.objectContaining({ input_tokens: 22, records: 3 })]);
    tracker.end('t2');
    expect(attached.filter(([id]) => id === 't2')).toEqual([]);
    tracker.stop();
  });

  it('drops a record the CLI stamped before the delivery (an earlier turn flushed late) and a half-written line until it is whole', () => {
    const { dir, attached, tracker } = setup();
    const file = path.join(dir, 's1.jsonl');
    fs.writeFileSync(file, '');
    tracker.begin(task('t1'));
    record(file, 50, { at: Date.now() - 60_000 });
    fs.appendFileSync(file, '{"type":"assistant","timestamp":"');
    tracker.end('t1');
    expect(attached).toEqual([]);
    fs.appendFileSync(file, `${new Date().toISOString()}","message":{"id":"late","usage":{"input_tokens":3}}}\n`);
    tracker.settle();
    expect(attached).toEqual([['t1', expect.objectContaining({ input_tokens: 3, records: 1 })]]);
  });

  it("with two sessions of one CLI in the directory, takes the one that holds the task's message (or its session id)", () => {
    const { dir, attached, tracker } = setup();
    const mine = path.join(dir, 'mine.jsonl');
    const other = path.join(dir, 'other.jsonl');
    tracker.begin(task('t1', 'please count the tokens of this one'));
    record(mine, 11, { text: 'A2A: please count the tokens of this one' });
    record(other, 500, { text: 'A2A: something else entirely' });
    tracker.end('t1');
    expect(attached).toEqual([['t1', expect.objectContaining({ input_tokens: 11 })]]);

    const pinned = setup('sess-1');
    tracker.stop();
    pinned.tracker.begin(task('t2'));
    record(path.join(pinned.dir, 'sess-1.jsonl'), 4);
    record(path.join(pinned.dir, 'sess-2.jsonl'), 400);
    pinned.tracker.end('t2');
    expect(pinned.attached).toEqual([['t2', expect.objectContaining({ input_tokens: 4 })]]);
  });

  it('a missing directory, a garbled file or an unreadable one never throws and attaches nothing', () => {
    const { dir, attached, tracker } = setup();
    tracker.begin(task('t1'));
    fs.writeFileSync(path.join(dir, 'junk.jsonl'), '{not json\n\u0000\n{"type":"assistant","message":null}\n');
    fs.mkdirSync(path.join(dir, 'a-dir.jsonl'));
    tracker.end('t1');
    fs.rmSync(dir, { recursive: true });
    tracker.begin(task('t2'));
    tracker.end('t2');
    tracker.stop();
    expect(attached).toEqual([]);
  });
});

describe('pricing', () => {
  it('prices a model by its own entry, else the longest prefix; a provider/ prefix is ignored; settings replace defaults', () => {
    expect(priceFor('claude-sonnet-4-5-20250929', DEFAULT_PRICES)?.key).toBe('claude-sonnet');
    expect(priceFor('anthropic/claude-opus-4-1-20250805', DEFAULT_PRICES)?.key).toBe('claude-opus-4-1');
    expect(priceFor('gpt-5-mini-2025', DEFAULT_PRICES)?.key).toBe('gpt-5-mini');
    expect(priceFor('mock-model', DEFAULT_PRICES)).toBeNull();
    const table = priceTable({ 'mock-model': { input: 1, output: 2 } });
    expect(priceFor('mock-model', table)?.price).toEqual({ input: 1, output: 2 });
    // Cache prices default to the input price.
    expect(
      costOf({ input_tokens: 1_000_000, output_tokens: 1_000_000, cache_read_tokens: 1_000_000, cache_write_tokens: 1_000_000 }, { input: 1, output: 2 }),
    ).toBe(5);
  });
});
