import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuthSettings } from '../../src/config/auth-keys.js';
import { allowedHostNames } from '../../src/server/host-check.js';
import { freePort, tempHome } from '../support/synapse.js';
import { appRoutes, testApp, type Route, type TestApp } from '../integration/server/test-app.js';

/**
 * API keys on every route of the agent's real app (issue 15 §2): the routes are listed from the
 * app itself, so a route added later is covered too. A caller from another machine (a
 * non-loopback address) without a key or with a wrong one gets 401 everywhere but the two public
 * cards; a user key on an admin route gets 403; the admin key opens it.
 */

const USER_KEY = 'synapse_user-key-for-tests-0123456789';
const ADMIN_KEY = 'synapse_admin-key-for-tests-9876543210';
const REMOTE = '192.0.2.10';
const AUTH: AuthSettings = { enabled: true, allowLocalhost: true, userKeys: [USER_KEY], adminKeys: [ADMIN_KEY] };

/** The routes that need the admin key (issue 15 §2: shutdown, webhooks, routes that change settings). */
const ADMIN = new Set([
  'POST /shutdown',
  'POST /spawn',
  'POST /team/start',
  'POST /webhooks',
  'GET /webhooks',
  'HEAD /webhooks',
  'GET /webhooks/deliveries',
  'HEAD /webhooks/deliveries',
  'DELETE /webhooks',
  'DELETE /webhooks/:id',
  'POST /external/discover',
  'DELETE /external/agents/:alias',
]);
const PUBLIC = new Set([
  'GET /.well-known/agent.json',
  'HEAD /.well-known/agent.json',
  'GET /.well-known/agent-card.json',
  'HEAD /.well-known/agent-card.json',
]);
/** Streams that stay open once let in: checked for refusal only. */
const STREAMS = new Set(['GET /events']);

const concrete = (url: string) =>
  url
    .replace(':verb', 'message:send')
    .replace(/:[A-Za-z]+/g, 'x')
    .replace('*', 'no/such');
const name = (r: Route) => `${r.method} ${r.url}`;

let home: ReturnType<typeof tempHome>;
let routes: Route[];
let t: TestApp;

beforeAll(async () => {
  home = tempHome();
  const port = await freePort();
  routes = (await appRoutes(home.home, home.env, port)).filter((r) => r.method !== 'OPTIONS');
  t = await testApp({ home: home.home, env: home.env, port, auth: AUTH });
});
afterAll(async () => {
  await t?.close();
  home?.cleanup();
});

function call(r: Route, headers: Record<string, string>, remoteAddress = REMOTE) {
  const body = ['POST', 'PUT', 'PATCH', 'DELETE'].includes(r.method)
    ? { payload: '{}', headers: { ...headers, 'content-type': 'application/json' } }
    : { headers };
  return t.app.inject({ method: r.method as 'GET', url: concrete(r.url), remoteAddress, ...body });
}

describe('auth on: every route', () => {
  it('lists the routes it checks, admin and public ones among them', () => {
    const names = new Set(routes.map(name));
    for (const r of [...ADMIN, ...PUBLIC]) expect(names, r).toContain(r);
    expect(routes.length).toBeGreaterThan(60);
  });

  it('answers 401 without a key and with a wrong key, except the public cards', async () => {
    const wrong: string[] = [];
    for (const r of routes) {
      const variants: Array<Record<string, string>> = [{}, { 'x-api-key': 'synapse_wrong' }, { authorization: `Bearer ${USER_KEY}x` }];
      for (const headers of variants) {
        const res = await call(r, headers);
        const expected = PUBLIC.has(name(r)) ? 200 : 401;
        if (res.statusCode !== expected) wrong.push(`${name(r)} ${JSON.stringify(headers)}: ${res.statusCode} ${res.body.slice(0, 120)}`);
        if (expected === 401 && res.headers['www-authenticate'] === undefined) wrong.push(`${name(r)}: 401 without WWW-Authenticate`);
        if (res.body.includes(USER_KEY) || res.body.includes('synapse_wrong')) wrong.push(`${name(r)}: the key is echoed`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('answers 403 to a user key on an admin route, and lets the admin key through', async () => {
    const wrong: string[] = [];
    for (const r of routes.filter((x) => ADMIN.has(name(x)))) {
      const user = await call(r, { 'x-api-key': USER_KEY });
      const code = r.method === 'HEAD' ? 'admin_required' : JSON.parse(user.body).error?.code;
      if (user.statusCode !== 403 || code !== 'admin_required') wrong.push(`${name(r)} user key: ${user.statusCode} ${user.body}`);
      if (r.url === '/shutdown') continue; // would stop the fake runtime
      const admin = await call(r, { authorization: `Bearer ${ADMIN_KEY}` });
      if ([401, 403].includes(admin.statusCode)) wrong.push(`${name(r)} admin key: ${admin.statusCode} ${admin.body}`);
    }
    expect(wrong).toEqual([]);
  });

  it('lets a user key (X-API-Key or Bearer) through every other route', async () => {
    const wrong: string[] = [];
    for (const r of routes.filter((x) => !ADMIN.has(name(x)) && !STREAMS.has(name(x)))) {
      const headers: Record<string, string> = r.method === 'GET' ? { 'x-api-key': USER_KEY } : { authorization: `bearer ${USER_KEY}` };
      const res = await call(r, headers);
      if ([401, 403].includes(res.statusCode)) wrong.push(`${name(r)}: ${res.statusCode} ${res.body.slice(0, 120)}`);
    }
    expect(wrong).toEqual([]);
  });

  it('answers in each binding’s own error shape', async () => {
    const rest = await t.app.inject({ method: 'GET', url: '/a2a/rest/v1/tasks', remoteAddress: REMOTE });
    expect([rest.statusCode, JSON.parse(rest.body).error.status]).toEqual([401, 'UNAUTHENTICATED']);
    const rpc = await t.app.inject({
      method: 'POST',
      url: '/a2a/jsonrpc',
      remoteAddress: REMOTE,
      headers: { 'content-type': 'application/json' },
      payload: '{}',
    });
    expect([rpc.statusCode, JSON.parse(rpc.body).jsonrpc, JSON.parse(rpc.body).error.code]).toEqual([401, '2.0', -32600]);
    const own = await t.app.inject({ method: 'GET', url: '/tasks', remoteAddress: REMOTE });
    expect([own.statusCode, JSON.parse(own.body).error.code]).toEqual([401, 'unauthorized']);
  });

  it('lets loopback callers through without a key by default (SYNAPSE_ALLOW_LOCALHOST)', async () => {
    for (const remote of ['127.0.0.1', '::1', '::ffff:127.0.0.1']) {
      const res = await t.app.inject({ method: 'GET', url: '/tasks', remoteAddress: remote });
      expect(res.statusCode, remote).toBe(200);
    }
  });

  it('advertises the key schemes on both cards (1.0, 0.3 and Synapse’s own)', async () => {
    const own = JSON.parse((await t.app.inject({ method: 'GET', url: '/.well-known/agent.json', remoteAddress: REMOTE })).body);
    expect(own.securitySchemes).toMatchObject({ apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' }, bearer: { type: 'http', scheme: 'bearer' } });
    expect(own.security).toEqual([{ apiKey: [] }, { bearer: [] }]);
    const v1 = JSON.parse((await t.app.inject({ method: 'GET', url: '/.well-known/agent-card.json', remoteAddress: REMOTE })).body);
    expect(v1.securitySchemes).toMatchObject({
      apiKey: { apiKeySecurityScheme: { location: 'header', name: 'X-API-Key' } },
      bearer: { httpAuthSecurityScheme: { scheme: 'Bearer' } },
    });
    expect(v1.securityRequirements.map((r: { schemes: object }) => Object.keys(r.schemes))).toEqual([['apiKey'], ['bearer']]);
    const v03 = JSON.parse(
      (await t.app.inject({ method: 'GET', url: '/.well-known/agent-card.json', remoteAddress: REMOTE, headers: { 'a2a-version': '0.3' } })).body,
    );
    expect(v03.security).toEqual([{ apiKey: [] }, { bearer: [] }]);
    expect(JSON.stringify([own, v1, v03])).not.toContain(USER_KEY);
  });
});

describe('auth with loopback not trusted, and auth off', () => {
  it('needs a key from loopback too when SYNAPSE_ALLOW_LOCALHOST is false', async () => {
    const h = tempHome();
    const strict = await testApp({ home: h.home, env: h.env, port: await freePort(), auth: { ...AUTH, allowLocalhost: false } });
    try {
      const bare = await strict.app.inject({ method: 'GET', url: '/status' });
      const keyed = await strict.app.inject({ method: 'GET', url: '/status', headers: { 'x-api-key': USER_KEY } });
      expect([bare.statusCode, keyed.statusCode]).toEqual([401, 200]);
    } finally {
      await strict.close();
      h.cleanup();
    }
  });

  it('needs no key and advertises no scheme when auth is off', async () => {
    const h = tempHome();
    const open = await testApp({ home: h.home, env: h.env, port: await freePort(), auth: { ...AUTH, enabled: false } });
    try {
      const status = await open.app.inject({ method: 'GET', url: '/status', remoteAddress: REMOTE });
      const card = JSON.parse((await open.app.inject({ method: 'GET', url: '/.well-known/agent.json' })).body);
      const v1 = JSON.parse((await open.app.inject({ method: 'GET', url: '/.well-known/agent-card.json' })).body);
      expect(status.statusCode).toBe(200);
      expect([card.securitySchemes, card.security, v1.securitySchemes ?? {}]).toEqual([undefined, undefined, {}]);
    } finally {
      await open.close();
      h.cleanup();
    }
  });
});

describe('Host check for whatever --host binds (DNS rebinding)', () => {
  const cases: Array<[bind: string, host: string, ok: boolean]> = [
    ['127.0.0.1', '127.0.0.1:8100', true],
    ['127.0.0.1', 'localhost:8100', true],
    ['127.0.0.1', '[::1]:8100', true],
    ['127.0.0.1', 'evil.example:8100', false],
    ['127.0.0.1', '127.0.0.1.evil.example', false],
    ['127.0.0.1', 'localhost.evil.example:8100', false],
    ['127.0.0.1', '192.0.2.7:8100', false],
    ['192.0.2.7', '192.0.2.7:8100', true],
    ['192.0.2.7', 'box.lan:8100', true],
    ['192.0.2.7', 'evil.example:8100', false],
    ['192.0.2.7', 'localhost:8100', false],
    ['0.0.0.0', 'localhost:8100', true],
    ['0.0.0.0', '127.0.0.1:8100', true],
    ['0.0.0.0', 'evil.example:8100', false],
    ['0.0.0.0', 'box.lan', true],
  ];

  it('lets a request name only the agent’s own addresses or SYNAPSE_ALLOWED_HOSTS (403 forbidden_host otherwise)', async () => {
    const wrong: string[] = [];
    for (const bind of ['127.0.0.1', '192.0.2.7', '0.0.0.0']) {
      const h = tempHome();
      const app = await testApp({ home: h.home, env: h.env, port: await freePort(), hosts: allowedHostNames(bind, ['box.lan']) });
      try {
        for (const [, host, ok] of cases.filter(([b]) => b === bind)) {
          const res = await app.app.inject({ method: 'GET', url: '/status', headers: { host } });
          const refused = res.statusCode === 403 && JSON.parse(res.body).error?.code === 'forbidden_host';
          if (ok === refused) wrong.push(`bind ${bind}, Host "${host}": ${res.statusCode} ${res.body.slice(0, 100)}`);
        }
        // The card is public for origins, never for a foreign Host, and A2A answers in its own shape.
        const card = await app.app.inject({ method: 'GET', url: '/.well-known/agent-card.json', headers: { host: 'evil.example' } });
        const rest = await app.app.inject({ method: 'GET', url: '/a2a/rest/v1/tasks', headers: { host: 'evil.example' } });
        if (card.statusCode !== 403 || rest.statusCode !== 403 || JSON.parse(rest.body).error.status !== 'PERMISSION_DENIED')
          wrong.push(`bind ${bind}: card ${card.statusCode}, rest ${rest.statusCode} ${rest.body}`);
      } finally {
        await app.close();
        h.cleanup();
      }
    }
    expect(wrong).toEqual([]);
  });

  it('takes the bound address and SYNAPSE_ALLOWED_HOSTS as the agent’s own origins', async () => {
    const h = tempHome();
    const port = await freePort();
    const app = await testApp({ home: h.home, env: h.env, port, hosts: allowedHostNames('192.0.2.7', ['box.lan']) });
    try {
      const own = await app.app.inject({ method: 'GET', url: '/status', headers: { host: `box.lan:${port}`, origin: `http://box.lan:${port}` } });
      const foreign = await app.app.inject({ method: 'GET', url: '/status', headers: { host: `box.lan:${port}`, origin: 'http://evil.example' } });
      expect([own.statusCode, foreign.statusCode, JSON.parse(foreign.body).error.code]).toEqual([200, 403, 'forbidden_origin']);
    } finally {
      await app.close();
      h.cleanup();
    }
  });
});
