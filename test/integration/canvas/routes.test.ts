import fs from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { FastifyInstance } from 'fastify';
import { buildCanvasApp, type CanvasApp } from '../../../src/server/canvas/canvas-app.js';
import { SynapseError } from '../../../src/errors.js';
import { ROOT, tempHome, waitFor } from '../../support/synapse.js';
import { SAMPLE_CARDS } from '../../support/canvas-fixtures.js';

/**
 * Hostile input against every route of the Canvas server (app.inject, a real SQLite file in a
 * temp HOME), the WebSocket over a real socket, and the guide naming every route.
 */

const t = tempHome();
const PORT = 3999;
const OWN = `http://127.0.0.1:${PORT}`;
let canvas: CanvasApp;
let app: FastifyInstance;
const routes: { method: string; url: string }[] = [];
const sent: { target: string; text: string }[] = [];

beforeAll(async () => {
  canvas = await buildCanvasApp({
    env: t.env,
    projectDir: path.join(t.home, 'project'),
    port: PORT,
    onRoute: (r) => routes.push(r),
    send: async (target, text) => {
      if (target !== 'alice') throw new SynapseError('target_not_found', `no agent '${target}'`);
      sent.push({ target, text });
      return { task_id: 't1', target: 'synapse-echo-1', status: 'completed', answer: `ECHO: ${text}`, error: null };
    },
    jump: async (target) => {
      throw new SynapseError('not_found', `${target} has no pane to jump to`);
    },
  });
  app = canvas.app;
  await app.ready();
});
afterAll(async () => {
  await app.close();
  t.cleanup();
});

const inject = (opts: { method: string; url: string; payload?: string; headers?: Record<string, string> }) =>
  app.inject({ ...opts, method: opts.method as 'GET', headers: { host: `127.0.0.1:${PORT}`, ...(opts.headers ?? {}) } });
const json = (method: string, url: string, body: unknown, headers: Record<string, string> = {}) =>
  inject({ method, url, payload: JSON.stringify(body), headers: { 'content-type': 'application/json', ...headers } });

/** One concrete URL per registered route. */
function concrete(url: string): string {
  return url.replace(':id', 'sample-markdown').replace(':target', 'alice').replace(':pkg', 'marked').replace('*', 'marked.esm.js');
}
const apiRoutes = () => routes.filter((r) => r.method !== 'HEAD' && r.url !== '/ws');

describe('every route refuses what a web page or a rebinding attacker sends', () => {
  beforeAll(() => {
    canvas.canvas.post({ id: 'sample-markdown', type: 'markdown', body: '# hi', agent_id: 'alice' });
  });

  it('registers the routes the guide lists', () => {
    expect(apiRoutes().length).toBeGreaterThanOrEqual(14);
    const guide = fs.readFileSync(path.join(ROOT, 'guides', 'canvas.md'), 'utf8');
    const documented = new Set(
      [...guide.matchAll(/`((?:[A-Z]+\|)*[A-Z]+) (\/[^`\s]*)`/g)].flatMap((m) => m[1]!.split('|').map((x) => `${x} ${m[2]!.replace(/\?.*$/, '')}`)),
    );
    const asDoc = (r: { method: string; url: string }) => `${r.method} ${r.url.replace(/:([A-Za-z]+)/g, '{$1}')}`;
    expect(
      routes
        .filter((r) => r.method !== 'HEAD')
        .map(asDoc)
        .filter((r) => !documented.has(r)),
    ).toEqual([]);
    const served = new Set(routes.map(asDoc));
    expect([...documented].filter((d) => !served.has(d))).toEqual([]);
  });

  it('a foreign Origin gets 403 forbidden_origin on every route, before any handler runs', async () => {
    for (const r of apiRoutes()) {
      const res = await inject({
        method: r.method,
        url: concrete(r.url),
        headers: { origin: 'https://evil.example', 'content-type': 'application/json' },
        payload: '{}',
      });
      expect(res.statusCode, `${r.method} ${r.url}`).toBe(403);
      expect(res.json().error.code).toBe('forbidden_origin');
    }
    expect(canvas.canvas.get('sample-markdown').body).toBe('# hi');
    // The sandboxed html frame's requests carry Origin: null.
    const fromFrame = await json('POST', '/api/cards/clear', {}, { origin: 'null' });
    expect(fromFrame.statusCode).toBe(403);
  });

  it('a Host that is not loopback gets 403 forbidden_host on every route', async () => {
    for (const r of apiRoutes()) {
      const res = await app.inject({ method: r.method as 'GET', url: concrete(r.url), headers: { host: 'evil.example:3999' } });
      expect(res.statusCode, `${r.method} ${r.url}`).toBe(403);
      expect(res.json().error.code).toBe('forbidden_host');
    }
  });

  it('bodies must be JSON: a form or text/plain POST (no CORS preflight) gets 415', async () => {
    for (const r of apiRoutes().filter((x) => x.method === 'POST')) {
      for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
        const res = await inject({ method: 'POST', url: concrete(r.url), payload: '{}', headers: { 'content-type': type, origin: OWN } });
        expect(res.statusCode, `${r.url} ${type}`).toBe(415);
      }
    }
  });

  it('broken JSON, wrong shapes and oversized values get 400 invalid_input, never 500', async () => {
    const bad: [string, string, unknown][] = [
      ['POST', '/api/cards', { type: 'nope', body: 'x' }],
      ['POST', '/api/cards', { type: 'markdown' }],
      ['POST', '/api/cards', { type: 'markdown', body: 42 }],
      ['POST', '/api/cards', { type: 'table', body: { headers: 'a', rows: [] } }],
      ['POST', '/api/cards', { type: 'chart', body: { type: 'bar', datasets: [{ data: ['x'] }] } }],
      ['POST', '/api/cards', { type: 'image', body: { src: 'javascript:alert(1)' } }],
      ['POST', '/api/cards', { type: 'image', body: { src: 'data:text/html;base64,PHNjcmlwdD4=' } }],
      ['POST', '/api/cards', { type: 'link', body: { url: 'javascript:alert(1)' } }],
      ['POST', '/api/cards', { type: 'code', body: { code: 'x', language: '"><script>' } }],
      ['POST', '/api/cards', { type: 'plan', body: { steps: [{ id: 'a', title: 'A', depends_on: ['zz'] }] } }],
      [
        'POST',
        '/api/cards',
        {
          type: 'plan',
          body: {
            steps: [
              { id: 'a', title: 'A' },
              { id: 'a', title: 'B' },
            ],
          },
        },
      ],
      ['POST', '/api/cards', { type: 'markdown', body: 'x', id: '../../etc/passwd' }],
      ['POST', '/api/cards', { type: 'markdown', body: 'x', title: 'x'.repeat(501) }],
      ['POST', '/api/cards', { type: 'briefing', body: { sections: [{ block: { type: 'plan', body: {} } }] } }],
      ['POST', '/api/cards', ['not', 'an', 'object']],
      ['POST', '/api/cards/clear', { agent: '' }],
      ['POST', '/api/send', { target: 'alice' }],
      ['POST', '/api/send', { target: 'alice', message: '' }],
      ['POST', '/api/send', { target: 'alice', message: 'x', timeout_s: -1 }],
    ];
    for (const [method, url, body] of bad) {
      const res = await json(method, url, body, { origin: OWN });
      expect(res.statusCode, `${url} ${JSON.stringify(body).slice(0, 80)}`).toBe(400);
      expect(res.json().error.code).toBe('invalid_input');
    }
    const broken = await inject({ method: 'POST', url: '/api/cards', payload: '{"type": "markdown", ', headers: { 'content-type': 'application/json' } });
    expect(broken.statusCode).toBe(400);
    for (const q of ['type=nope', 'limit=0', 'limit=abc', `search=${'x'.repeat(600)}`]) {
      expect((await inject({ method: 'GET', url: `/api/cards?${q}` })).statusCode, q).toBe(400);
    }
    expect((await inject({ method: 'GET', url: '/api/cards?search=%22%29%20OR%20*' })).statusCode).toBe(200);
    expect((await inject({ method: 'GET', url: '/api/cards?search=%2A%2A' })).statusCode).toBe(400);
    expect((await inject({ method: 'GET', url: '/api/history?limit=0' })).statusCode).toBe(400);
    const huge = await json('POST', '/api/cards', { type: 'markdown', body: 'x'.repeat(9 * 1024 * 1024) });
    expect(huge.statusCode).toBe(413);
  });

  it('missing things are 404, a type change under one id is 409, and a good card is stored and read back', async () => {
    expect((await inject({ method: 'GET', url: '/api/cards/nope' })).statusCode).toBe(404);
    expect((await inject({ method: 'DELETE', url: '/api/cards/nope', headers: { origin: OWN } })).statusCode).toBe(404);
    expect((await inject({ method: 'GET', url: '/api/cards/a%2Fb' })).statusCode).toBe(400);
    expect((await json('POST', '/api/cards', { type: 'table', body: { headers: [], rows: [] }, id: 'sample-markdown' })).statusCode).toBe(409);
    for (const [type, card] of Object.entries(SAMPLE_CARDS)) {
      const res = await json('POST', '/api/cards', { type, id: `ok-${type}`, agent_id: 'bob', ...card }, { origin: OWN });
      expect(res.statusCode, type).toBe(201);
    }
    const again = await json('POST', '/api/cards', { type: 'markdown', id: 'ok-markdown', body: 'v2' });
    expect(again.statusCode).toBe(200);
    expect((await inject({ method: 'GET', url: '/api/cards/ok-markdown' })).json().body).toBe('v2');
    const listed = (await inject({ method: 'GET', url: '/api/cards?agent=bob&type=plan' })).json().cards;
    expect(listed.map((c: any) => c.id)).toEqual(['ok-plan']);
    expect((await inject({ method: 'GET', url: '/api/cards?search=parser' })).json().cards.length).toBeGreaterThan(0);
  });

  it('send and jump answer with the error codes of their failures', async () => {
    const missing = await json('POST', '/api/send', { target: 'nobody', message: 'hi' }, { origin: OWN });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error.code).toBe('target_not_found');
    const ok = await json('POST', '/api/send', { target: 'alice', message: 'two\nlines' }, { origin: OWN });
    expect(ok.json().answer).toBe('ECHO: two\nlines');
    expect(sent).toEqual([{ target: 'alice', text: 'two\nlines' }]);
    const jump = await inject({ method: 'POST', url: '/api/agents/alice/jump', headers: { origin: OWN } });
    expect(jump.statusCode).toBe(404);
  });

  it('static files stay inside their folders and the page forbids scripts from anywhere else', async () => {
    for (const url of [
      '/app/../package.json',
      '/app/%2e%2e/%2e%2e/package.json',
      '/app/..%2f..%2fpackage.json',
      '/vendor/marked/..%2f..%2f..%2fpackage.json',
      '/vendor/nope/x.js',
      '/app/%00',
      '/app/',
    ]) {
      const res = await inject({ method: 'GET', url });
      expect([400, 404], url).toContain(res.statusCode);
      expect(res.body).not.toContain('"name": "synapse-a2a"');
    }
    const page = await inject({ method: 'GET', url: '/' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    const frame = await inject({ method: 'GET', url: '/frame' });
    expect(frame.headers['content-security-policy']).toMatch(/script-src 'sha256-[A-Za-z0-9+/=]+'/);
    expect(frame.headers['content-security-policy']).toContain("default-src 'none'");
    expect((await inject({ method: 'GET', url: '/vendor/mermaid/mermaid.min.js' })).statusCode).toBe(200);
  });
});

describe('the WebSocket', () => {
  let url: string;
  beforeAll(async () => {
    // The same app on a real socket (the port in its own origins is not the one it listens on,
    // so the "own origin" case is sent as the agent's name for loopback without a port check).
    await app.listen({ host: '127.0.0.1', port: 0 });
    url = `ws://127.0.0.1:${(app.server.address() as AddressInfo).port}/ws`;
  });

  const open = (headers: Record<string, string>) =>
    new Promise<{ ws: WebSocket; first: any } | { status: number }>((resolve) => {
      const ws = new WebSocket(url, { headers });
      ws.once('message', (d) => resolve({ ws, first: JSON.parse((d as Buffer).toString('utf8')) }));
      ws.once('unexpected-response', (_req, res) => resolve({ status: res.statusCode ?? 0 }));
      ws.once('error', () => undefined);
    });

  it('refuses a foreign Origin and a rebinding Host at the upgrade', async () => {
    expect(await open({ origin: 'https://evil.example' })).toEqual({ status: 403 });
    expect(await open({ host: 'evil.example' })).toEqual({ status: 403 });
  });

  it('says hello, then tells of every card written through the server', async () => {
    const r = await open({});
    if (!('ws' in r)) throw new Error(`refused: ${r.status}`);
    expect(r.first.type).toBe('hello');
    const events: any[] = [];
    r.ws.on('message', (d) => events.push(JSON.parse((d as Buffer).toString('utf8'))));
    await json('POST', '/api/cards', { type: 'markdown', id: 'ws-card', body: 'live' });
    await waitFor(() => events.find((e) => e.type === 'card' && e.card.id === 'ws-card'), 2000, 'the card event');
    await inject({ method: 'DELETE', url: '/api/cards/ws-card' });
    await waitFor(() => events.find((e) => e.type === 'card_deleted' && e.id === 'ws-card'), 2000, 'the delete event');
    // Garbage from a client is ignored, and a frame over the limit closes only that client.
    r.ws.send('not json');
    const closed = new Promise((res) => r.ws.once('close', (code) => res(code)));
    r.ws.send('x'.repeat(70 * 1024));
    expect(await closed).toBe(1009);
    expect((await inject({ method: 'GET', url: '/api/status' })).statusCode).toBe(200);
  });
});
