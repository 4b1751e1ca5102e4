import http from 'node:http';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupAll, startHeadless, tempHome, textMessage, waitFor, type AgentHandle } from '../../support/synapse.js';
import { appRoutes, testApp, type Route, type TestApp } from './test-app.js';

/**
 * A web page the user visits must not be able to reach a wrapped CLI. Browsers send "simple"
 * cross-origin requests without a CORS preflight (text/plain, form encodings, multipart, or a body
 * with no type), and send `Origin` with every cross-origin POST. Every route that takes a body is
 * listed from the app itself, so a route added later is driven too.
 */

const MARK = 'DRIVE-BY-7f3c9';
const FOREIGN = 'http://evil.example';
const DASHBOARD = 'https://dash.example.test';
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

interface Res {
  status: number;
  headers: http.IncomingHttpHeaders | http.OutgoingHttpHeaders;
  body: any;
}
interface Req {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}
type Call = (req: Req) => Promise<Res>;

type Binding = 'synapse' | 'jsonrpc' | 'rest';
const bindingOf = (url: string): Binding => (url.startsWith('/a2a/rest/') ? 'rest' : url.startsWith('/a2a/') ? 'jsonrpc' : 'synapse');

/** A concrete path for a route pattern (its parameters filled, the catch-all given a deep path). */
function concrete(url: string): string {
  return url
    .replace(':verb', 'message:send')
    .replace(':task', 'x:cancel')
    .replace(/:[A-Za-z]+/g, 'x')
    .replace('*', 'no/such/resource');
}

/** A JSON body that would do harm on that route if it were read (a message carrying MARK). */
function harmfulJson(url: string): string {
  const binding = bindingOf(url);
  if (binding === 'rest') return JSON.stringify({ message: { messageId: 'm-drive-by', role: 'ROLE_USER', parts: [{ text: MARK }] } });
  if (binding === 'jsonrpc') {
    const message = { kind: 'message', messageId: 'm-drive-by', role: 'user', parts: [{ kind: 'text', text: MARK }] };
    return JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'message/send', params: { message } });
  }
  return JSON.stringify({ ...textMessage(MARK), text: MARK, subject: MARK, key: MARK, value: MARK });
}

/** How a page sends a body without a preflight. `type: null` is a Blob with no type: no header at all. */
const SIMPLE_BODIES: ReadonlyArray<{ name: string; type: string | null; encode: (json: string) => string }> = [
  { name: 'text/plain', type: 'text/plain;charset=UTF-8', encode: (j) => j },
  { name: 'form', type: 'application/x-www-form-urlencoded', encode: (j) => `${encodeURIComponent(j)}=` },
  {
    name: 'multipart',
    type: 'multipart/form-data; boundary=----drive-by',
    encode: (j) => `------drive-by\r\nContent-Disposition: form-data; name="x"\r\n\r\n${j}\r\n------drive-by--\r\n`,
  },
  { name: 'no type', type: null, encode: (j) => j },
];

/** What a refusal looks like, per binding, reduced to what the test compares. */
function outcome(binding: Binding, res: Res): string {
  const e = res.body?.error;
  if (binding === 'jsonrpc') return `${res.status} rpc ${e?.code}`;
  if (binding === 'rest') return `${res.status} ${e?.status} ${e?.details?.[0]?.reason ?? ''}`.trim();
  return `${res.status} ${e?.code}`;
}
const CONTENT_TYPE_REFUSED: Record<Binding, string> = {
  synapse: '415 unsupported_media_type',
  jsonrpc: '200 rpc -32005',
  rest: '415 INVALID_ARGUMENT CONTENT_TYPE_NOT_SUPPORTED',
};
const ORIGIN_REFUSED: Record<Binding, string> = { synapse: '403 forbidden_origin', jsonrpc: '403 rpc -32600', rest: '403 PERMISSION_DENIED' };

/** Drives every body route with each simple body and with a foreign Origin on JSON; returns [got, expected]. */
async function driveBy(call: Call, routes: Route[]): Promise<[string[], string[]]> {
  const got: string[] = [];
  const expected: string[] = [];
  for (const r of routes) {
    const url = concrete(r.url);
    const binding = bindingOf(r.url);
    const version: Record<string, string> = binding === 'rest' ? { 'a2a-version': '1.0' } : {};
    const json = harmfulJson(r.url);
    for (const b of SIMPLE_BODIES) {
      const res = await call({ method: r.method, url, headers: { ...version, ...(b.type ? { 'content-type': b.type } : {}) }, body: b.encode(json) });
      got.push(`${r.method} ${r.url} [${b.name}] → ${outcome(binding, res)}${/Content-Type/.test(res.body?.error?.message) ? '' : ' (no reason given)'}`);
      expected.push(`${r.method} ${r.url} [${b.name}] → ${CONTENT_TYPE_REFUSED[binding]}`);
    }
    const res = await call({ method: r.method, url, headers: { ...version, 'content-type': 'application/json', origin: FOREIGN }, body: json });
    got.push(`${r.method} ${r.url} [origin] → ${outcome(binding, res)}${res.body?.error?.message?.includes(FOREIGN) ? '' : ' (origin not named)'}`);
    expected.push(`${r.method} ${r.url} [origin] → ${ORIGIN_REFUSED[binding]}`);
  }
  return [got, expected];
}

function injectCall(app: FastifyInstance): Call {
  return async (req) => {
    const res = await app.inject({
      method: req.method as 'POST',
      url: req.url,
      headers: req.headers,
      ...(req.body !== undefined ? { payload: req.body } : {}),
    });
    let body: unknown = res.body;
    try {
      body = JSON.parse(res.body);
    } catch {
      // not JSON (an empty 204): keep the text
    }
    return { status: res.statusCode, headers: res.headers, body };
  };
}

/** Raw HTTP, so any Origin and Content-Type (or none) can be sent, as a browser would. */
function httpCall(port: number): Call {
  return (req) =>
    new Promise((resolve, reject) => {
      const payload = req.body === undefined ? undefined : Buffer.from(req.body);
      const r = http.request(
        {
          host: '127.0.0.1',
          port,
          path: req.url,
          method: req.method,
          headers: { ...req.headers, ...(payload ? { 'content-length': String(payload.length) } : {}) },
        },
        (res) => {
          let text = '';
          res.on('data', (d: Buffer) => (text += d.toString('utf8')));
          res.on('end', () => {
            let body: unknown = text;
            try {
              body = JSON.parse(text);
            } catch {
              // not JSON: keep the text
            }
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
          });
        },
      );
      r.on('error', reject);
      r.end(payload);
    });
}

const allowHeaders = (res: Res) => Object.keys(res.headers).filter((h) => h.startsWith('access-control-allow-'));

describe('the app refuses drive-by requests (inject)', () => {
  const t = tempHome();
  let served: TestApp;
  const routes: Route[] = [];
  let call: Call;

  beforeAll(async () => {
    served = await testApp({
      home: t.home,
      env: t.env,
      port: 18_100,
      thinkMs: 5,
      corsOrigins: [DASHBOARD],
      onRoute: (r) => {
        if (BODY_METHODS.has(r.method)) routes.push(r);
      },
    });
    call = injectCall(served.app);
  });
  afterAll(async () => {
    await served.close();
    t.cleanup();
  });

  it('lists every route that takes a body, the A2A bindings and the Synapse routes among them', () => {
    const posts = routes.filter((r) => r.method === 'POST').map((r) => r.url);
    for (const url of ['/tasks/send', '/tasks/send-priority', '/shutdown', '/reply', '/tasks/board', '/memory', '/webhooks', '/external/discover'])
      expect(posts).toContain(url);
    // The original Synapse's routes, on its paths.
    for (const url of ['/tasks/create', '/tasks/:id/reply', '/history/update', '/tasks/:id/permission/approve', '/tasks/:id/permission/deny', '/memory/save'])
      expect(posts).toContain(url);
    // Plan approval (Claude Code's plan mode).
    for (const url of ['/tasks/:id/approve', '/tasks/:id/reject']) expect(posts).toContain(url);
    for (const url of ['/a2a/jsonrpc', '/a2a/v0.3/jsonrpc', '/a2a/rest/v1/:verb', '/a2a/rest/v1/tasks/:task', '/a2a/rest/v1/*']) expect(posts).toContain(url);
    expect(posts.length).toBeGreaterThanOrEqual(25);
  });

  it('refuses every simple body and every foreign Origin on every body route, and nothing is created', async () => {
    const [got, expected] = await driveBy(call, routes);
    expect(got).toEqual(expected);
    expect((await call({ method: 'GET', url: '/tasks', headers: {} })).body).toEqual([]);
    expect((await call({ method: 'GET', url: '/tasks/board', headers: {} })).body.tasks).toEqual([]);
    expect((await call({ method: 'GET', url: '/memory', headers: {} })).body.memories).toEqual([]);
    expect((await call({ method: 'GET', url: '/memory/list', headers: {} })).body.memories).toEqual([]);
    expect((await call({ method: 'GET', url: '/webhooks', headers: {} })).body).toEqual([]);
  });

  it('refuses a foreign Origin on reads too, but not on the public agent cards', async () => {
    expect((await call({ method: 'GET', url: '/tasks', headers: { origin: FOREIGN } })).status).toBe(403);
    expect((await call({ method: 'GET', url: '/screen', headers: { origin: 'null' } })).status).toBe(403);
    for (const url of ['/.well-known/agent.json', '/.well-known/agent-card.json']) {
      const res = await call({ method: 'GET', url, headers: { origin: FOREIGN } });
      expect({ url, status: res.status, name: res.body.name }).toEqual({ url, status: 200, name: expect.any(String) });
    }
  });

  it('takes JSON with parameters, a2a+json on HTTP+JSON, and a body-less POST as before', async () => {
    const sent = await call({
      method: 'POST',
      url: '/tasks/send',
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify(textMessage('hi')),
    });
    expect(sent.status).toBe(202);
    const rest = await call({
      method: 'POST',
      url: '/a2a/rest/v1/message:send',
      headers: { 'content-type': 'application/a2a+json', 'a2a-version': '1.0' },
      body: JSON.stringify({ message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hello' }] } }),
    });
    expect(rest.status).toBe(200);
    const created = await call({
      method: 'POST',
      url: '/tasks/board',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ subject: 'x' }),
    });
    expect(created.status).toBe(201);
    const claimed = await call({ method: 'POST', url: `/tasks/board/${created.body.task.id}/claim`, headers: {} });
    expect(claimed.status).toBe(200);
    // The JSON-RPC binding is application/json only (A2A §9.1); a2a+json is the HTTP+JSON type.
    const rpc = await call({ method: 'POST', url: '/a2a/jsonrpc', headers: { 'content-type': 'application/a2a+json' }, body: '{}' });
    expect(outcome('jsonrpc', rpc)).toBe('200 rpc -32005');
  });

  it('lets the agent’s own origins and SYNAPSE_CORS_ORIGINS through, with CORS headers for them only', async () => {
    for (const origin of ['http://127.0.0.1:18100', 'http://localhost:18100', 'http://[::1]:18100', DASHBOARD]) {
      const res = await call({
        method: 'POST',
        url: '/tasks/send',
        headers: { origin, 'content-type': 'application/json' },
        body: JSON.stringify(textMessage('hi')),
      });
      expect({ origin, status: res.status, allow: res.headers['access-control-allow-origin'] }).toEqual({ origin, status: 202, allow: origin });
    }
    const otherPort = await call({ method: 'GET', url: '/tasks', headers: { origin: 'http://127.0.0.1:18101' } });
    expect(otherPort.status).toBe(403);

    const foreign = await call({ method: 'OPTIONS', url: '/tasks/send', headers: { origin: FOREIGN, 'access-control-request-method': 'POST' } });
    expect(foreign.status).toBe(403);
    expect(allowHeaders(foreign)).toEqual([]);
    const allowed = await call({
      method: 'OPTIONS',
      url: '/a2a/jsonrpc',
      headers: { origin: DASHBOARD, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    expect(allowed.status).toBe(204);
    expect(allowed.headers['access-control-allow-origin']).toBe(DASHBOARD);
    expect(allowed.headers['access-control-allow-methods']).toContain('POST');
    expect(allowed.headers['access-control-allow-headers']).toContain('content-type');
    expect(allowed.headers['access-control-allow-credentials']).toBeUndefined();
  });
});

describe('a real agent: nothing from a page reaches the PTY', () => {
  const t = tempHome();
  let agent: AgentHandle;
  const routes: Route[] = [];
  let call: Call;
  const screen = async () => ((await call({ method: 'GET', url: '/screen', headers: {} })).body.lines as string[]).join('\n');

  beforeAll(async () => {
    // The routes, as the agent's app registers them (the same factory, with webhooks as the agent has).
    routes.push(...(await appRoutes(t.home, t.env, 18_102)).filter((r) => BODY_METHODS.has(r.method)));
    agent = await startHeadless('echo', { env: { ...t.env, SYNAPSE_CORS_ORIGINS: `${DASHBOARD}, https://other.example.test:8443` }, cwd: t.home });
    call = httpCall(agent.port);
  });
  afterAll(async () => {
    await cleanupAll();
    t.cleanup();
  });

  it('refuses every simple body and foreign Origin; no task, no text on the screen, still running', async () => {
    // Only the start-up instruction's task, once it is answered.
    const listTasks = async () => (await call({ method: 'GET', url: '/tasks', headers: {} })).body as Array<{ id: string; status: string }>;
    const tasksBefore = await waitFor(async () => {
      const tasks = await listTasks();
      return tasks.every((x) => x.status === 'completed') && tasks.map((x) => x.id);
    });
    const before = await screen();
    const [got, expected] = await driveBy(call, routes);
    expect(got).toEqual(expected);
    expect((await listTasks()).map((x) => x.id)).toEqual(tasksBefore);
    const after = await screen();
    expect(after).not.toContain(MARK);
    expect(after).toBe(before);
    expect((await call({ method: 'GET', url: '/status', headers: {} })).status).toBe(200);
  });

  it('takes the same message from its own origin and from SYNAPSE_CORS_ORIGINS, and it reaches the PTY', async () => {
    for (const origin of [`http://127.0.0.1:${agent.port}`, DASHBOARD]) {
      const text = `${MARK}-${origin.length}`;
      const res = await call({
        method: 'POST',
        url: '/tasks/send',
        headers: { origin, 'content-type': 'application/json' },
        body: JSON.stringify(textMessage(text)),
      });
      expect({ origin, status: res.status, allow: res.headers['access-control-allow-origin'] }).toEqual({ origin, status: 202, allow: origin });
      const id = res.body.task.id as string;
      await waitFor(async () => (await call({ method: 'GET', url: `/tasks/${id}`, headers: {} })).body.status === 'completed', 15_000, `task ${id}`);
      expect(await screen()).toContain(text);
    }
    const cards = await Promise.all(
      ['/.well-known/agent.json', '/.well-known/agent-card.json'].map((url) => call({ method: 'GET', url, headers: { origin: FOREIGN } })),
    );
    expect(cards.map((c) => c.status)).toEqual([200, 200]);
    const preflight = await call({ method: 'OPTIONS', url: '/a2a/jsonrpc', headers: { origin: FOREIGN, 'access-control-request-method': 'POST' } });
    expect(preflight.status).toBe(403);
    expect(allowHeaders(preflight)).toEqual([]);
  });
});
