import type { FastifyReply, FastifyRequest } from 'fastify';
import { httpDate } from '../clock.js';

/**
 * How long a client may use a card without asking again. The card carries the agent's status
 * and its team, which the registry refreshes every heartbeat (10 s): a card older than that says
 * less than the registry, and asking again is cheap (a 304 without a body while nothing changed).
 * The bindings and skills, what a client caches a card for, change far more rarely.
 */
const CARD_MAX_AGE_S = 10;
export const CARD_CACHE_CONTROL = `public, max-age=${CARD_MAX_AGE_S}`;

interface Version {
  etag: string;
  /**
   * Its modification time in whole seconds: when it was first served (the card is built per
   * request, so that is when it changed), and always later than the version before it, so that a
   * date names one version even when the card changed twice within a second.
   */
  modified: number;
}

/**
 * 64 bits of a string's hash (cyrb53's mixing, both halves kept): not a cryptographic hash. A card
 * is our own output, not an attacker's, so an ETag needs only to tell its versions apart; and
 * node:crypto's sha256 here kept node:crypto (~0.8 MiB) in every agent whose card was read once.
 */
function hash64(text: string, seed: number): string {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (h2 >>> 0).toString(16).padStart(8, '0') + (h1 >>> 0).toString(16).padStart(8, '0');
}

/** A strong validator: a 128-bit hash (two seeds) of the exact text sent. */
export function strongEtag(body: string): string {
  return `"${hash64(body, 0)}${hash64(body, 0x9e3779b9)}"`;
}

/** `If-None-Match` matches (weak comparison, RFC 9110 §13.1.2): `*` or any listed tag, `W/` or not. */
export function noneMatchHits(header: string, etag: string): boolean {
  const opaque = etag.replace(/^W\//, '');
  return header.split(',').some((t) => {
    const tag = t.trim();
    return tag === '*' || tag.replace(/^W\//, '') === opaque;
  });
}

function appendVary(reply: FastifyReply, name: string): void {
  const current = reply.getHeader('vary');
  const list = typeof current === 'string' && current ? current.split(',').map((v) => v.trim()) : [];
  if (!list.some((v) => v.toLowerCase() === name.toLowerCase())) list.push(name);
  reply.header('vary', list.join(', '));
}

/**
 * Serves an agent card with HTTP caching: `Cache-Control` with `max-age`, a strong `ETag` and
 * `Last-Modified` (when this content was first served), answering `If-None-Match` and
 * `If-Modified-Since` with 304. One instance per card route; `variant` tells apart
 * representations of one URL (the 0.3 and 1.0 cards, chosen by `A2A-Version`).
 */
export class CardCache {
  private readonly versions = new Map<string, Version>();

  constructor(private readonly now: () => number = Date.now) {}

  send(req: FastifyRequest, reply: FastifyReply, card: unknown, opts: { variant?: string; vary?: string } = {}): FastifyReply {
    const body = JSON.stringify(card);
    const now = Math.floor(this.now() / 1000);
    const version = this.version(opts.variant ?? '', strongEtag(body), now);
    // Never a date in the future (RFC 9110 §8.8.2.1): until then, an earlier one, which only
    // costs its holder one full answer.
    const lastModified = httpDate(Math.min(version.modified, now) * 1000);
    reply.header('cache-control', CARD_CACHE_CONTROL).header('etag', version.etag).header('last-modified', lastModified);
    if (opts.vary) appendVary(reply, opts.vary);
    if (this.notModified(req, version)) return reply.status(304).send();
    return reply.type('application/json; charset=utf-8').send(body);
  }

  private version(variant: string, etag: string, now: number): Version {
    const known = this.versions.get(variant);
    if (known?.etag === etag) return known;
    const version = { etag, modified: known ? Math.max(now, known.modified + 1) : now };
    this.versions.set(variant, version);
    return version;
  }

  /** RFC 9110 §13.2.2: `If-None-Match` decides when present; else `If-Modified-Since`. */
  private notModified(req: FastifyRequest, version: Version): boolean {
    const noneMatch = req.headers['if-none-match'];
    if (typeof noneMatch === 'string') return noneMatchHits(noneMatch, version.etag);
    const since = req.headers['if-modified-since'];
    if (typeof since !== 'string') return false;
    const date = Date.parse(since);
    return !Number.isNaN(date) && version.modified * 1000 <= date;
  }
}
