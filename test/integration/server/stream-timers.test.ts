import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../../src/server/app.js';
import { freePort, waitFor } from '../../support/synapse.js';
import { fakeRuntime, type FakeRuntime } from '../a2a/fake-runtime.js';

/**
 * No timer outlives its client: every SSE stream (Synapse's /events and /tasks/:id/subscribe,
 * A2A's subscribe) keeps a keepalive interval while it is open, and a client that goes away
 * while the task is still running must take it along. The real app with the real runtime parts
 * (fake-runtime.ts) on a loopback port; the intervals are counted as the routes start and clear them.
 */
const closers: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

/** Counts intervals started and not yet cleared, from now until `restore`. */
function countIntervals(): { live: () => number; restore: () => void } {
  const live = new Set<unknown>();
  const set = globalThis.setInterval;
  const clear = globalThis.clearInterval;
  globalThis.setInterval = (fn: () => void, ms?: number) => {
    const t = set(fn, ms);
    live.add(t);
    return t;
  };
  globalThis.clearInterval = (t: Parameters<typeof clearInterval>[0]) => {
    live.delete(t);
    clear(t);
  };
  return {
    live: () => live.size,
    restore: () => {
      globalThis.setInterval = set;
      globalThis.clearInterval = clear;
    },
  };
}

async function app(): Promise<{ rt: FakeRuntime; base: string }> {
  const port = await freePort();
  const rt = fakeRuntime({ port });
  closers.push(() => rt.close());
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stream-timers-'));
  closers.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  const a: FastifyInstance = await buildApp({
    api: rt.api,
    displayName: 'Echo',
    description: 'fake',
    workingDir: dir,
    agentId: rt.api.entry().agent_id,
    env: { HOME: dir },
  });
  await a.listen({ host: '127.0.0.1', port });
  closers.push(() => a.close());
  return { rt, base: rt.api.entry().endpoint };
}

/** Opens a stream, reads its first bytes, and leaves. */
async function openAndLeave(url: string, init: RequestInit = {}): Promise<void> {
  const ac = new AbortController();
  const res = await fetch(url, { ...init, signal: ac.signal });
  expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
  const reader = res.body!.getReader();
  await reader.read();
  ac.abort();
  await reader.cancel().catch(() => undefined);
}

describe('SSE clients that leave while the task runs', () => {
  it('leave no keepalive timer behind, on every stream route', async () => {
    const { rt, base } = await app();
    // Queued for a minute: every stream stays open until its client leaves.
    const running = rt.api.submit({ message: { role: 'user', parts: [{ type: 'text', text: 'slow [[wait: 60]]' }] } });
    const timers = countIntervals();
    closers.push(() => timers.restore());
    for (let i = 0; i < 10; i++) {
      await openAndLeave(`${base}/events`);
      await openAndLeave(`${base}/tasks/${running.id}/subscribe`);
      await openAndLeave(`${base}/a2a/rest/v1/tasks/${running.id}:subscribe`, { headers: { 'a2a-version': '1.0' } });
    }
    await waitFor(() => timers.live() === 0, 5000, 'every stream timer to be cleared');
    // The task was still waiting the whole time: every stream was left open, none ended by itself.
    expect(rt.api.getTask(running.id).status.state).toBe('submitted');
  });
});

describe('a stream that resumes from an old event id', () => {
  it('gets the missed events in one write, in order, then the live ones', async () => {
    const { rt, base } = await app();
    for (let i = 1; i <= 300; i++) rt.events.publish('note', { n: i });
    // Count the response's writes of event frames while the replay is sent.
    const http = await import('node:http');
    const proto = http.ServerResponse.prototype;
    const write = Reflect.get(proto, 'write') as (...a: unknown[]) => boolean;
    let frameWrites = 0;
    proto.write = function (this: unknown, chunk: unknown, ...rest: unknown[]) {
      if (String(chunk).startsWith('id: ')) frameWrites++;
      return write.call(this, chunk, ...rest);
    } as typeof proto.write;
    closers.push(() => {
      proto.write = write as typeof proto.write;
    });
    const ac = new AbortController();
    closers.push(() => ac.abort());
    const res = await fetch(`${base}/events?last_event_id=100`, { signal: ac.signal });
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    const ids = (): number[] => [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
    while (ids().length < 200) text += decoder.decode((await reader.read()).value);
    expect(frameWrites).toBe(1);
    expect(ids()).toEqual(Array.from({ length: 200 }, (_, i) => i + 101));
    expect(text).toContain('event: note\ndata: {"n":300}\n\n');
    rt.events.publish('note', { n: 301 });
    while (!text.includes('"n":301')) text += decoder.decode((await reader.read()).value);
    expect(ids().at(-1)).toBe(301);
    expect(frameWrites).toBe(2);
    await reader.cancel().catch(() => undefined);
  });
});
