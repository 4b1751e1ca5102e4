import crypto from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Access, AuthSettings } from '../config/auth-keys.js';
import { SynapseError } from '../errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Who may call the route when auth is on (`SYNAPSE_AUTH_ENABLED`): `public` (the agent
     * cards), `user` (any valid key; the default) or `admin` (`SYNAPSE_ADMIN_KEY` or the
     * per-user key: shutdown, webhooks, routes that change the agent's settings).
     */
    access?: Access;
  }
}

/** The route option of an admin-only route. */
export const ADMIN_ROUTE = { config: { access: 'admin' } } as const;
/** The route option of a route anyone may read (the agent cards). */
export const PUBLIC_ROUTE = { config: { access: 'public' } } as const;

const digest = (key: string): Buffer => crypto.createHash('sha256').update(key, 'utf8').digest();

/**
 * Whether `key` is one of `keys` (their digests), in constant time: every key is compared, all
 * of the same length (a digest), with no early exit, so the answer's timing says nothing about
 * how much of a key was right.
 */
function matchesAny(key: string, keys: readonly Buffer[]): boolean {
  const d = digest(key);
  let found = false;
  for (const k of keys) found = crypto.timingSafeEqual(d, k) || found;
  return found;
}

/** `127.0.0.0/8`, `::1` and their IPv4-mapped forms. */
function isLoopbackAddress(address: string | undefined): boolean {
  if (!address) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  return v4 === '::1' || /^127\.\d+\.\d+\.\d+$/.test(v4);
}

function header(req: FastifyRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** The key a request presents: `X-API-Key`, else `Authorization: Bearer <key>`; null for none. */
function presentedKey(req: FastifyRequest): string | null {
  const apiKey = header(req, 'x-api-key')?.trim();
  if (apiKey) return apiKey;
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(header(req, 'authorization') ?? '');
  return bearer ? bearer[1]! : null;
}

const HOW = 'send it as X-API-Key or Authorization: Bearer (a key of SYNAPSE_API_KEYS, SYNAPSE_ADMIN_KEY or your ~/.synapse/api-key; guides/security.md)';

/**
 * API keys for the whole app, as one `onRequest` hook (before any body is read). Off unless
 * `settings.enabled`. A route's `config.access` says who may call it (see `FastifyContextConfig`
 * above); loopback callers pass without a key while `allowLocalhost`. A request without a key,
 * or with a key that is not one of ours, gets 401 `unauthorized`; a user key on an admin route
 * gets 403 `admin_required`. Keys are compared in constant time and never logged or echoed.
 */
export function installAuth(app: FastifyInstance, settings: AuthSettings): void {
  if (!settings.enabled) return;
  const adminKeys = settings.adminKeys.map(digest);
  const userKeys = settings.userKeys.map(digest);
  app.addHook('onRequest', async (req, reply) => {
    const access = req.routeOptions.config?.access ?? 'user';
    if (access === 'public') return;
    if (settings.allowLocalhost && isLoopbackAddress(req.socket.remoteAddress)) return;
    const key = presentedKey(req);
    const admin = key !== null && matchesAny(key, adminKeys);
    if (key === null || !(admin || matchesAny(key, userKeys))) {
      reply.header('www-authenticate', 'Bearer realm="synapse"');
      throw new SynapseError('unauthorized', key === null ? `this agent needs an API key: ${HOW}` : `the API key is not one this agent accepts: ${HOW}`);
    }
    if (access === 'admin' && !admin) {
      throw new SynapseError('admin_required', 'this route needs the admin key (SYNAPSE_ADMIN_KEY or your ~/.synapse/api-key); the key sent is a user key');
    }
  });
}
