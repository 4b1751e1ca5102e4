import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupAll, getJson, startHeadless, tempHome, type AgentHandle } from '../support/synapse.js';
import { sendRaw } from './support/raw-http.js';

/**
 * Hostile `Idempotency-Key` headers on the send routes (issue 21 §3): too long, empty, bytes
 * outside printable ASCII, control bytes. Each is refused with a 4xx in our error shape before
 * anything is stored, and none makes a task; the error never echoes the key.
 */

const t = tempHome();
let a: AgentHandle;

beforeAll(async () => {
  a = await startHeadless('echo', { env: { ...t.env, ECHO_THINK_MS: '0' } });
}, 30_000);

afterAll(async () => {
  await cleanupAll();
  t.cleanup();
});

/** A send with `key` as the header value, written byte for byte (latin1): what comes back, status and body. */
async function sendWithKey(route: string, key: string, marker: string): Promise<{ status: number; body: any; raw: string }> {
  const body = JSON.stringify({ message: { role: 'user', parts: [{ type: 'text', text: marker }] }, metadata: { response_mode: 'silent' } });
  const request =
    `POST ${route} HTTP/1.1\r\nHost: 127.0.0.1:${a.port}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
    `Idempotency-Key: ${key}\r\nConnection: close\r\n\r\n${body}`;
  const { data } = await sendRaw(a.port, Buffer.from(request, 'latin1'), 5000);
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(data)?.[1]);
  const text = data.slice(data.indexOf('\r\n\r\n') + 4);
  let parsed: unknown = null;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: the assertion on the body says so
  }
  return { status, body: parsed, raw: data };
}

async function tasksSaying(marker: string): Promise<number> {
  const { body } = await getJson(`${a.endpoint}/tasks?limit=1000`);
  return (body as any[]).filter((task) => JSON.stringify(task.message).includes(marker)).length;
}

const HOSTILE: Array<[string, string]> = [
  ['256 characters', 'k'.repeat(256)],
  ['64 KiB', 'k'.repeat(65_536)],
  ['only spaces (empty once trimmed)', '   '],
  ['a Latin-1 byte', 'caf\u00e9-key'],
  ['DEL', 'a\u007fb'],
  ['a C1 control', 'a\u009bb'],
  ['NUL', 'a\u0000b'],
  ['ESC (a terminal sequence)', '\u001b[31mred'],
  ['a bare CR', 'a\rb'],
];

describe.each(['/tasks/send', '/tasks/send-priority?priority=3'])('%s with a hostile Idempotency-Key', (route) => {
  it.each(HOSTILE)('%s: refused with a 4xx in our error shape, no task made', async (_what, key) => {
    const marker = `hostile-${randomUUID().slice(0, 8)}`;
    const r = await sendWithKey(route, key, marker);
    expect(r.status, r.raw.slice(0, 300)).toBeGreaterThanOrEqual(400);
    expect(r.status).toBeLessThan(500);
    expect(['invalid_input', 'body_too_large']).toContain(r.body?.error?.code);
    // The refusal does not echo the key back (nor any control byte of it).
    expect(r.raw).not.toContain(key.length > 3 ? key : '\u0000never');
    expect(await tasksSaying(marker)).toBe(0);
  });

  it('255 printable characters (the longest key) are taken', async () => {
    const marker = `longest-${randomUUID().slice(0, 8)}`;
    const key = `${randomUUID()}${'~'.repeat(255 - 36)}`;
    const first = await sendWithKey(route, key, marker);
    expect(first.status).toBe(202);
    const again = await sendWithKey(route, key, marker);
    expect(again.status).toBe(200);
    expect(again.body.task.id).toBe(first.body.task.id);
    expect(await tasksSaying(marker)).toBe(1);
  });
});
