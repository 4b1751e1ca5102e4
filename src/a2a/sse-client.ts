import { createParser } from 'eventsource-parser';
import { SynapseError } from '../errors.js';
import { tlsHint, transportFor, type PeerTls } from './peer-tls.js';

export interface SseEvent {
  id: number;
  event: string;
  data: unknown;
}

/**
 * Follows an SSE stream until `onEvent` returns true (done) or the stream ends; reconnects with
 * `Last-Event-ID` when the connection drops before that, so no event is missed or doubled.
 */
export async function followSse(
  url: string,
  onEvent: (e: SseEvent) => boolean | void,
  opts: { signal?: AbortSignal; maxReconnects?: number; tls?: PeerTls | undefined; headers?: Record<string, string> } = {},
): Promise<void> {
  let lastId = 0;
  let reconnects = 0;
  const transport = await transportFor(url, opts.tls);
  for (;;) {
    const outcome = await new Promise<'done' | 'ended'>((resolve, reject) => {
      const headers = { ...opts.headers, accept: 'text/event-stream', ...(lastId ? { 'last-event-id': String(lastId) } : {}) };
      const req = transport.request(url, { ...transport.options, headers }, (res) => {
        if (res.statusCode !== 200) {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let message = text;
            try {
              message = (JSON.parse(text) as { error?: { message?: string } }).error?.message ?? text;
            } catch {
              // plain text
            }
            reject(new SynapseError(res.statusCode === 404 ? 'task_not_found' : 'agent_unreachable', `${url}: ${res.statusCode} ${message}`));
          });
          return;
        }
        let done = false;
        const parser = createParser({
          onEvent: (msg) => {
            if (done) return;
            const id = Number(msg.id ?? 0);
            if (id) lastId = id;
            let data: unknown = msg.data;
            try {
              data = JSON.parse(msg.data);
            } catch {
              // keep the raw string
            }
            if (onEvent({ id, event: msg.event ?? 'message', data }) === true) {
              done = true;
              req.destroy();
              resolve('done');
            }
          },
        });
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => parser.feed(chunk));
        res.on('end', () => resolve(done ? 'done' : 'ended'));
        res.on('error', () => resolve(done ? 'done' : 'ended'));
      });
      req.on('error', (err) => {
        const why =
          tlsHint(err) ||
          '. The agent stopped answering (it exited or was killed); its task store keeps the task, marked failed when the agent starts again: `synapse list` shows whether it runs';
        reject(new SynapseError('agent_unreachable', `cannot follow ${url}: ${err.message}${why}`));
      });
      opts.signal?.addEventListener('abort', () => {
        req.destroy();
        resolve('done');
      });
      req.end();
    });
    if (outcome === 'done' || opts.signal?.aborted) return;
    if (++reconnects > (opts.maxReconnects ?? 5)) throw new SynapseError('agent_unreachable', `the stream ${url} kept closing before the task finished`);
    await new Promise((r) => setTimeout(r, 200 * reconnects));
  }
}
