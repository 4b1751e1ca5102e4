import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedHook {
  headers: http.IncomingHttpHeaders;
  raw: Buffer;
  /** The status this receiver answered with, or null while it holds the request (or never answered it). */
  answered: number | null;
}

/**
 * A webhook receiver on 127.0.0.1 for fault tests. `ok` answers 204; `hold` reads the request
 * and never answers (a slow receiver: the delivery stays on the wire). `close()` makes it
 * absent (connections refused); `open()` listens again on the same port.
 */
export interface WebhookReceiver {
  port: number;
  url: string;
  received: ReceivedHook[];
  mode: 'ok' | 'hold';
  open(): Promise<void>;
  close(): Promise<void>;
  /** The requests that got a 2xx, by event id. */
  acknowledged(eventId: string): ReceivedHook[];
}

export async function webhookReceiver(opts: { port?: number; mode?: 'ok' | 'hold'; listen?: boolean } = {}): Promise<WebhookReceiver> {
  let server: http.Server | null = null;
  const r: WebhookReceiver = {
    port: opts.port ?? 0,
    url: '',
    received: [],
    mode: opts.mode ?? 'ok',
    async open() {
      const srv = http.createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          const hook: ReceivedHook = { headers: req.headers, raw: Buffer.concat(chunks), answered: null };
          r.received.push(hook);
          if (r.mode === 'hold') return;
          hook.answered = 204;
          res.writeHead(204).end();
        });
      });
      await new Promise<void>((resolve, reject) => {
        srv.once('error', reject);
        srv.listen(r.port, '127.0.0.1', () => resolve());
      });
      server = srv;
      r.port = (srv.address() as AddressInfo).port;
      r.url = `http://127.0.0.1:${r.port}/hook`;
    },
    close() {
      const srv = server;
      server = null;
      if (!srv) return Promise.resolve();
      return new Promise<void>((resolve) => {
        srv.closeAllConnections();
        srv.close(() => resolve());
      });
    },
    acknowledged: (eventId) => r.received.filter((h) => h.headers['x-synapse-event-id'] === eventId && h.answered !== null && h.answered < 300),
  };
  if (opts.listen !== false) await r.open();
  else r.url = `http://127.0.0.1:${r.port}/hook`;
  return r;
}

/** `X-Synapse-Signature` is the HMAC-SHA256 of the raw body with `secret` (guides/webhooks.md). */
export function signatureValid(h: ReceivedHook, secret: string): boolean {
  const given = Buffer.from(String(h.headers['x-synapse-signature'] ?? ''));
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(h.raw).digest('hex')}`);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
