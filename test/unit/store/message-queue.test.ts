import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { clockFrom } from '../../../src/clock.js';
import { MessageQueue, type NewQueuedMessage } from '../../../src/store/message-queue.js';

let dir: string;
let now: number;
let queue: MessageQueue;
const clock = clockFrom(() => now);

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'message-queue-unit-'));
  now = Date.parse('2026-03-01T12:00:00Z');
  queue = new MessageQueue(path.join(dir, 'message_queue.db'), { clock });
});

afterEach(() => {
  queue.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

let n = 0;
function message(over: Partial<NewQueuedMessage> = {}): NewQueuedMessage {
  n += 1;
  return {
    id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    target: 'reviewer',
    target_kind: 'name',
    target_key: 'reviewer',
    sender: { sender_id: 'synapse-echo-8190', sender_name: 'alice', sender_endpoint: 'http://127.0.0.1:8190' },
    priority: 3,
    message: { role: 'user', parts: [{ type: 'text', text: `message ${n}\nsecond line` }] },
    metadata: { response_mode: 'notify' },
    ttlMs: 60_000,
    maxPerSender: 100,
    ...over,
  };
}

const reviewer = { agent_id: 'synapse-echo-8191', name: 'reviewer', types: ['echo'] };

describe('the project message queue', () => {
  it('enqueues once per id (a retried send is the same message), counts what waits, and previews the first line', () => {
    const m = message();
    const first = queue.enqueue(m);
    expect(first).toMatchObject({ created: true, waiting: 1, message: { state: 'waiting', preview: `message ${n}`, expires_at: '2026-03-01T12:01:00.000Z' } });
    expect(queue.enqueue(m)).toMatchObject({ created: false, waiting: 1 });
    expect(queue.enqueue(message())).toMatchObject({ created: true, waiting: 2 });
    expect(queue.waiting()).toEqual([
      { target_kind: 'name', target_key: 'reviewer', waiting: 2, oldest_at: '2026-03-01T12:00:00.000Z', next_expiry_at: '2026-03-01T12:01:00.000Z' },
    ]);
  });

  it('a claim takes the matching messages oldest first, exactly once; others (another name, another type) stay', () => {
    const ids = [queue.enqueue(message()), queue.enqueue(message()), queue.enqueue(message({ target_kind: 'type', target_key: 'echo' }))].map(
      (r) => r.message.id,
    );
    const other = queue.enqueue(message({ target: 'builder', target_key: 'builder' })).message.id;
    const codexType = queue.enqueue(message({ target_kind: 'type', target_key: 'codex' })).message.id;
    expect(queue.hasWorkFor(reviewer)).toBe(true);
    const claimed = queue.claim(reviewer, new Set([reviewer.agent_id]));
    expect(claimed.map((m) => m.id)).toEqual(ids);
    // A second agent of the type finds nothing left of what the first took.
    expect(queue.claim({ agent_id: 'synapse-echo-8192', name: null, types: ['echo'] }, new Set())).toEqual([]);
    for (const id of ids) queue.delivered(id, reviewer.agent_id, 'http://127.0.0.1:8191');
    expect(queue.get(ids[0]!)).toMatchObject({ state: 'delivered', delivered_to: reviewer.agent_id });
    expect(queue.get(other)?.state).toBe('waiting');
    expect(queue.get(codexType)?.state).toBe('waiting');
    expect(queue.waitingFor(reviewer)).toBe(0);
  });

  it('a claim left by an agent that stopped goes back to waiting after a minute; released claims wait again in order', () => {
    const a = queue.enqueue(message({ ttlMs: 3_600_000 })).message.id;
    const b = queue.enqueue(message({ ttlMs: 3_600_000 })).message.id;
    expect(queue.claim(reviewer, new Set()).map((m) => m.id)).toEqual([a, b]);
    const successor = { ...reviewer, agent_id: 'synapse-echo-8195' };
    expect(queue.claim(successor, new Set())).toEqual([]);
    now += 61_000;
    // Still claimed by a live agent: left alone.
    expect(queue.claim(successor, new Set([reviewer.agent_id]))).toEqual([]);
    expect(queue.claim(successor, new Set()).map((m) => m.id)).toEqual([a, b]);
    queue.release([a, b]);
    expect(queue.get(a)).toMatchObject({ state: 'waiting', claimed_by: null });
    expect(queue.claim(reviewer, new Set([successor.agent_id])).map((m) => m.id)).toEqual([a, b]);
  });

  it('the same agent takes back its own unfinished claims (it restarted)', () => {
    const a = queue.enqueue(message()).message.id;
    expect(queue.claim(reviewer, new Set()).map((m) => m.id)).toEqual([a]);
    expect(queue.claim(reviewer, new Set()).map((m) => m.id)).toEqual([a]);
  });

  it('expires what waited past its TTL, once, with a note; a claim never takes an expired message', () => {
    const a = queue.enqueue(message()).message.id;
    const later = queue.enqueue(message({ ttlMs: 3_600_000 })).message.id;
    now += 60_000;
    expect(queue.waiting()).toEqual([expect.objectContaining({ waiting: 1 })]);
    const expired = queue.expireDue();
    expect(expired.map((m) => [m.id, m.state])).toEqual([[a, 'expired']]);
    expect(expired[0]?.note).toBe('no agent named reviewer took it within 60 s (SYNAPSE_QUEUE_TTL)');
    expect(queue.expireDue()).toEqual([]);
    queue.noted([a]);
    expect(queue.get(a)?.sender_noted_at).toBe('2026-03-01T12:01:00.000Z');
    expect(queue.claim(reviewer, new Set()).map((m) => m.id)).toEqual([later]);
  });

  it('refuses a sender over its share for one target (queue_full); other senders and targets are not held up', () => {
    queue.enqueue(message({ maxPerSender: 2 }));
    queue.enqueue(message({ maxPerSender: 2 }));
    expect(() => queue.enqueue(message({ maxPerSender: 2 }))).toThrow(expect.objectContaining({ code: 'queue_full' }));
    expect(queue.enqueue(message({ maxPerSender: 2, sender: null })).created).toBe(true);
    expect(queue.enqueue(message({ maxPerSender: 2, target_key: 'builder' })).created).toBe(true);
  });

  it('refuse is final with why; purge deletes only ended messages older than the window', () => {
    const a = queue.enqueue(message()).message.id;
    const waiting = queue.enqueue(message({ target_key: 'builder', ttlMs: 30 * 86_400_000 })).message.id;
    queue.claim(reviewer, new Set());
    expect(queue.refuse(a, 'too large')).toMatchObject({ state: 'refused', note: 'too large' });
    now += 8 * 86_400_000;
    expect(queue.purge(7 * 86_400_000)).toBe(1);
    expect(queue.get(a)).toBeNull();
    expect(queue.get(waiting)?.state).toBe('waiting');
    expect(queue.forKeys(['builder']).map((m) => m.id)).toEqual([waiting]);
  });

  it('keeps no credential once a message ended: the preview from the start, the text after delivery or expiry', () => {
    const secret = 'ghp_' + 'a'.repeat(36);
    const text = (t: string) => ({ role: 'user' as const, parts: [{ type: 'text' as const, text: t }] });
    const delivered = queue.enqueue(message({ message: text(`use ${secret} to push`) })).message;
    expect(delivered.preview).not.toContain(secret);
    expect(delivered.message.parts).toEqual([{ type: 'text', text: `use ${secret} to push` }]);
    expect(queue.claim(reviewer, new Set())[0]?.message.parts).toEqual([{ type: 'text', text: `use ${secret} to push` }]);
    queue.delivered(delivered.id, reviewer.agent_id, 'http://127.0.0.1:8191');
    expect(JSON.stringify(queue.get(delivered.id))).not.toContain(secret);
    const lost = queue.enqueue(message({ target_key: 'builder', message: text(`token ${secret}`) })).message.id;
    now += 61_000;
    queue.expireDue();
    expect(JSON.stringify(queue.get(lost))).not.toContain(secret);
  });
});
