import type http from 'node:http';
import { SynapseError } from '../errors.js';
import { tlsHint, transportFor, type PeerTls } from './peer-tls.js';

export interface JsonResponse<T = unknown> {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: T;
}

/**
 * A tiny JSON-over-HTTP client on node:http: short-lived CLI commands avoid loading fetch
 * (undici), which costs more start-up time than the request itself.
 */
export async function requestJson<T = unknown>(
  url: string,
  options: { method?: string; body?: unknown; timeoutMs?: number; headers?: Record<string, string>; tls?: PeerTls | undefined } = {},
): Promise<JsonResponse<T>> {
  const transport = await transportFor(url, options.tls).catch((err: Error) => {
    throw new SynapseError('agent_unreachable', `cannot reach ${url}: ${err.message}`);
  });
  return new Promise((resolve, reject) => {
    const payload = options.body === undefined ? undefined : Buffer.from(JSON.stringify(options.body));
    const req = transport.request(
      url,
      {
        ...transport.options,
        method: options.method ?? (payload ? 'POST' : 'GET'),
        headers: {
          accept: 'application/json',
          ...(payload ? { 'content-type': 'application/json', 'content-length': String(payload.length) } : {}),
          ...options.headers,
        },
        timeout: options.timeoutMs ?? 10_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: unknown = text;
          try {
            body = text.length ? JSON.parse(text) : null;
          } catch {
            // not JSON: hand back the text
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: body as T });
        });
        res.on('error', (err: NodeJS.ErrnoException) =>
          reject(new SynapseError('agent_unreachable', `the answer from ${url} broke off: ${err.message}`, { errno: err.code ?? 'ECONNRESET' })),
        );
      },
    );
    req.on('timeout', () => req.destroy(Object.assign(new Error(`timed out after ${options.timeoutMs ?? 10_000} ms`), { code: 'ETIMEDOUT' })));
    // `errno` says how the connection failed (ECONNREFUSED: nobody listens; ECONNRESET, ETIMEDOUT:
    // the request may have arrived), so a caller can tell whether a retry is safe.
    req.on('error', (err: NodeJS.ErrnoException) =>
      reject(new SynapseError('agent_unreachable', `cannot reach ${url}: ${err.message}${tlsHint(err)}`, { errno: err.code ?? null })),
    );
    if (payload) req.write(payload);
    req.end();
  });
}
