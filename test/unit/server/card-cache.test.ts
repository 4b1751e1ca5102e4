import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { CARD_CACHE_CONTROL, CardCache, noneMatchHits, strongEtag } from '../../../src/server/card-cache.js';

/** A card route on a fake clock: `card` and `now` are what the next request sees. */
function cardApp(): { app: FastifyInstance; state: { card: unknown; now: number } } {
  const state = { card: { name: 'a', status: 'READY' } as unknown, now: Date.parse('2026-03-01T10:00:00.250Z') };
  const cache = new CardCache(() => state.now);
  const app = Fastify();
  app.get('/card', async (req, reply) => cache.send(req, reply, state.card));
  return { app, state };
}

const apps: FastifyInstance[] = [];
afterEach(async () => {
  for (const a of apps.splice(0)) await a.close();
});

async function setup() {
  const { app, state } = cardApp();
  apps.push(app);
  const get = (headers: Record<string, string> = {}) => app.inject({ method: 'GET', url: '/card', headers });
  return { state, get };
}

describe('card validators', () => {
  it('a strong ETag is the hash of the bytes; If-None-Match compares weakly, lists and * included', () => {
    expect(strongEtag('{"a":1}')).toBe(strongEtag('{"a":1}'));
    expect(strongEtag('{"a":1}')).not.toBe(strongEtag('{"a":2}'));
    expect(strongEtag('x')).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
    const tag = strongEtag('x');
    expect(noneMatchHits(tag, tag)).toBe(true);
    expect(noneMatchHits(`W/${tag}`, tag)).toBe(true);
    expect(noneMatchHits(`"other", ${tag}`, tag)).toBe(true);
    expect(noneMatchHits('*', tag)).toBe(true);
    expect(noneMatchHits('"other"', tag)).toBe(false);
  });
});

describe('a card route with CardCache', () => {
  it('sends the card with Cache-Control max-age, a strong ETag and Last-Modified; 304 for a matching If-None-Match', async () => {
    const { get } = await setup();
    const first = await get();
    expect(first.statusCode).toBe(200);
    expect(first.json()).toEqual({ name: 'a', status: 'READY' });
    expect(first.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(first.headers['cache-control']).toBe(CARD_CACHE_CONTROL);
    expect(first.headers['cache-control']).toMatch(/max-age=\d+/);
    expect(first.headers.etag).toBe(strongEtag(first.body));
    expect(first.headers['last-modified']).toBe('Sun, 01 Mar 2026 10:00:00 GMT');

    const again = await get({ 'if-none-match': String(first.headers.etag) });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    expect(again.headers.etag).toBe(first.headers.etag);
    expect(again.headers['cache-control']).toBe(CARD_CACHE_CONTROL);
    expect(again.headers['last-modified']).toBe(first.headers['last-modified']);
    expect((await get({ 'if-none-match': '"stale"' })).statusCode).toBe(200);
  });

  it('moves Last-Modified and the ETag only when the content changes', async () => {
    const { state, get } = await setup();
    const first = await get();
    state.now += 5_000;
    const same = await get();
    expect([same.headers.etag, same.headers['last-modified']]).toEqual([first.headers.etag, first.headers['last-modified']]);
    state.card = { name: 'a', status: 'PROCESSING' };
    const changed = await get();
    expect(changed.headers.etag).not.toBe(first.headers.etag);
    expect(changed.headers['last-modified']).toBe('Sun, 01 Mar 2026 10:00:05 GMT');
    expect((await get({ 'if-none-match': String(first.headers.etag) })).statusCode).toBe(200);
  });

  it('answers If-Modified-Since with 304 when nothing changed since, and If-None-Match wins over it', async () => {
    const { state, get } = await setup();
    const first = await get();
    const lastModified = String(first.headers['last-modified']);
    state.now += 3_000;
    expect((await get({ 'if-modified-since': lastModified })).statusCode).toBe(304);
    expect((await get({ 'if-modified-since': 'Sun, 01 Mar 2026 09:59:59 GMT' })).statusCode).toBe(200);
    expect((await get({ 'if-modified-since': 'not a date' })).statusCode).toBe(200);
    expect((await get({ 'if-modified-since': lastModified, 'if-none-match': '"other"' })).statusCode).toBe(200);
    state.card = { name: 'b' };
    expect((await get({ 'if-modified-since': lastModified })).statusCode).toBe(200);
  });

  it('tells apart two cards of the same second: the second one is dated a second later, once that second has come', async () => {
    const { state, get } = await setup();
    const first = await get();
    state.now += 300;
    state.card = { name: 'a', status: 'PROCESSING' };
    const second = await get();
    // Not a date in the future: the same date for now ...
    expect(second.headers['last-modified']).toBe(first.headers['last-modified']);
    // ... which a client holding either card gets a full answer for.
    expect((await get({ 'if-modified-since': String(first.headers['last-modified']) })).statusCode).toBe(200);
    expect((await get({ 'if-none-match': String(second.headers.etag) })).statusCode).toBe(304);
    state.now += 1000;
    const later = await get();
    expect(later.headers.etag).toBe(second.headers.etag);
    expect(later.headers['last-modified']).toBe('Sun, 01 Mar 2026 10:00:01 GMT');
    expect((await get({ 'if-modified-since': String(later.headers['last-modified']) })).statusCode).toBe(304);
    expect((await get({ 'if-modified-since': String(first.headers['last-modified']) })).statusCode).toBe(200);
  });

  it('answers HEAD like GET, without a body', async () => {
    const { state } = await setup();
    const app = apps[0]!;
    const head = await app.inject({ method: 'HEAD', url: '/card' });
    expect(head.statusCode).toBe(200);
    expect(head.body).toBe('');
    expect(head.headers.etag).toBe(strongEtag(JSON.stringify(state.card)));
  });
});
