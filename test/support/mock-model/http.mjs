// Small HTTP helpers shared by the protocol handlers of the mock model server.

import { SLOW_DELTA_MS, chunkText, sleep } from './script.mjs';

export function sendJson(res, status, value) {
  if (res.writableEnded || res.destroyed) return;
  const body = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/** Start a text/event-stream response. `event(name, data)` writes one event; `name` may be null. */
export function openSse(res) {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  res.flushHeaders?.();
  return {
    event(name, data) {
      if (res.writableEnded || res.destroyed) return false;
      const head = name ? `event: ${name}\n` : '';
      res.write(`${head}data: ${JSON.stringify(data)}\n\n`);
      return true;
    },
    end() {
      if (!res.writableEnded && !res.destroyed) res.end();
    },
  };
}

/**
 * Wait `plan.waitMs`, then call `emit(delta)` for each small piece of `plan.text`,
 * pausing SLOW_DELTA_MS between pieces when `plan.slow`. Returns false when the client went away.
 * `keepAlive` (optional) is called about once a second while waiting.
 */
export async function streamText(plan, signal, emit, keepAlive) {
  let left = plan.waitMs;
  while (left > 0) {
    const step = Math.min(left, 1000);
    if (!(await sleep(step, signal))) return false;
    left -= step;
    if (left > 0) keepAlive?.();
  }
  const chunks = chunkText(plan.text);
  for (let i = 0; i < chunks.length; i++) {
    if (signal.aborted) return false;
    emit(chunks[i]);
    if (plan.slow && i < chunks.length - 1 && !(await sleep(SLOW_DELTA_MS, signal))) return false;
  }
  return !signal.aborted;
}
