// Offline mock model server for e2e tests and screen recordings of the real agent CLIs.
// Plain Node ESM with node: built-ins only, so tests and scripts import it without a build.
//
//   const server = await startMockModelServer();            // port 0: a free port on 127.0.0.1
//   server.url        -> 'http://127.0.0.1:PORT'
//   server.requests   -> [{method, path, query, body, headers, at}]  (secrets removed)
//   await server.waitForRequest((r) => r.path === '/v1/messages', 5_000)
//   await server.close()
//
// Protocols: Anthropic Messages (/v1/messages, /v1/messages/count_tokens), OpenAI Responses
// (/v1/responses), OpenAI Chat Completions (/v1/chat/completions), Gemini (/v1beta/models/{model}:streamGenerateContent|generateContent|countTokens).
// The scripted behaviour (MOCK: echo, [[sh:]], [[escalate:]], [[wait:]], [[lines:]]) is in
// ./mock-model/script.mjs.

import { createServer } from 'node:http';
import { gunzipSync, inflateSync, brotliDecompressSync } from 'node:zlib';

import { handleAnthropic } from './mock-model/anthropic.mjs';
import { handleChatCompletions } from './mock-model/chat.mjs';
import { handleGemini } from './mock-model/gemini.mjs';
import { sendJson } from './mock-model/http.mjs';
import { handleResponses } from './mock-model/openai.mjs';

export { MOCK_USAGE, parseDirectives, planTurn, firstLine } from './mock-model/script.mjs';
export { readAnthropicTurn } from './mock-model/anthropic.mjs';
export { readResponsesTurn } from './mock-model/openai.mjs';
export { readChatTurn } from './mock-model/chat.mjs';
export { readGeminiTurn } from './mock-model/gemini.mjs';

const SECRET_HEADERS = new Set(['authorization', 'x-api-key', 'x-goog-api-key', 'api-key', 'cookie', 'proxy-authorization', 'chatgpt-account-id']);
const SECRET_QUERY = new Set(['key', 'api_key', 'apikey', 'access_token']);

function redactHeaders(headers) {
  const out = {};
  for (const [k, v] of Object.entries(headers)) out[k] = SECRET_HEADERS.has(k.toLowerCase()) ? '[redacted]' : v;
  return out;
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function decode(buf, encoding) {
  switch ((encoding ?? '').toLowerCase()) {
    case 'gzip':
      return gunzipSync(buf);
    case 'deflate':
      return inflateSync(buf);
    case 'br':
      return brotliDecompressSync(buf);
    case '':
    case 'identity':
      return buf;
    default:
      throw new Error(`unsupported content-encoding ${encoding}`);
  }
}

function parseBody(buf, contentType) {
  const text = buf.toString('utf8');
  if (text === '') return null;
  if (/json/i.test(contentType ?? '') || /^\s*[[{]/.test(text)) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}

/**
 * Answers for calls the CLIs make besides the model turns (start-up checks, telemetry, model
 * lists). Each unknown path is still logged; anything not listed gets 404 {}.
 */
function answerOther(method, pathname, res) {
  if (method === 'GET' && /^\/v1(beta)?\/models\/?$/.test(pathname)) {
    sendJson(res, 200, { object: 'list', data: [], models: [] });
    return;
  }
  if (method === 'HEAD' || (method === 'GET' && pathname === '/')) {
    sendJson(res, 200, {});
    return;
  }
  sendJson(res, 404, { type: 'error', error: { type: 'not_found_error', message: `mock: no route ${method} ${pathname}` } });
}

/**
 * @param {{port?: number, host?: string, log?: (line: string) => void}} [options]
 * @returns {Promise<{url: string, port: number, requests: Array<object>, unknown: Array<object>,
 *   waitForRequest: (pred: (r: object) => boolean, timeoutMs?: number) => Promise<object>, close: () => Promise<void>}>}
 */
export async function startMockModelServer({ port = 0, host = '127.0.0.1', log } = {}) {
  const requests = [];
  const unknown = [];
  const waiters = new Set();
  const sockets = new Set();

  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://mock');
    const query = {};
    for (const [k, v] of url.searchParams) query[k] = SECRET_QUERY.has(k.toLowerCase()) ? '[redacted]' : v;
    const controller = new AbortController();
    let body = null;
    try {
      body = parseBody(decode(await readBody(req), req.headers['content-encoding']), req.headers['content-type']);
    } catch (err) {
      body = { mockDecodeError: String(err) };
    }
    const entry = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query,
      body,
      headers: redactHeaders(req.headers),
      at: Date.now(),
      /** Set when the response is fully sent or the client went away. */
      endedAt: null,
      /** What the mock answered: 'text' | 'tool' | 'json' | 'other', set by the handlers. */
      answer: null,
    };
    requests.push(entry);
    res.on('close', () => {
      entry.endedAt = Date.now();
      controller.abort();
    });
    for (const w of waiters) w(entry);

    const ctx = {
      method: entry.method,
      pathname: url.pathname,
      query: url.searchParams,
      body,
      req,
      res,
      signal: controller.signal,
      note: (answer) => {
        entry.answer = answer;
      },
    };
    try {
      const handled = (await handleAnthropic(ctx)) || (await handleResponses(ctx)) || (await handleChatCompletions(ctx)) || (await handleGemini(ctx));
      if (!handled) {
        unknown.push(entry);
        log?.(`mock-model-server: unknown ${entry.method} ${url.pathname}`);
        answerOther(entry.method, url.pathname, res);
      }
    } catch (err) {
      log?.(`mock-model-server: error on ${url.pathname}: ${err?.stack ?? err}`);
      if (!res.headersSent) sendJson(res, 500, { error: { message: String(err) } });
      else res.end();
    }
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });

  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;
  const hostInUrl = host.includes(':') ? `[${host}]` : host;

  return {
    url: `http://${hostInUrl}:${actualPort}`,
    port: actualPort,
    requests,
    unknown,
    /** Requests whose response is still being sent (a turn in progress, a stream being slowed down). */
    inFlight() {
      return requests.filter((r) => r.endedAt === null);
    },
    /** Resolve with the first logged request (past or future) that matches, or reject after the deadline. */
    waitForRequest(pred, timeoutMs = 10_000) {
      const seen = requests.find(pred);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const w = (entry) => {
          if (!pred(entry)) return;
          clearTimeout(timer);
          waiters.delete(w);
          resolve(entry);
        };
        const timer = setTimeout(() => {
          waiters.delete(w);
          reject(new Error(`mock-model-server: no matching request within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(w);
      });
    },
    close() {
      return new Promise((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      });
    },
  };
}
