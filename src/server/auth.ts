import { nodeCrypto } from '../require-cjs.js';
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

const digest = (key: string): Buffer => nodeCrypto().createHash('sha256').update(key, 'utf8').digest();

/**
 * Whether `key` is one of `keys` (their digests), in constant time: every key is compared, all
 * of the same length (a digest), with no early exit, so the answer's timing says nothing about
 * how much of a key was right.
 */
function matchesAny(key: string, keys: readonly Buffer[]): boolean {
  const d = digest(key);
  let found = false;
  for (const k of keys) found = nodeCrypto().timingSafeEqual(d, k) || found;
  return found;
}

/** `127.0.0.0/8`, `::1` and their IPv4-mapped forms. */
function isLoopbackAddress(address: string | undefined): boolean {
  if (!address) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  return v4 === '::1' || /^127\.\d+\.\d+\.\d+$/.test(v4);
}

/**
 * The key a caller presents, read through `header` (an HTTP header or a gRPC metadata entry, by
 * lower-case name): `x-api-key`, else `authorization: Bearer <key>`; null for none.
 */
function presentedKey(header: (name: string) => string | undefined): string | null {
  const apiKey = header('x-api-key')?.trim();
  if (apiKey) return apiKey;
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(header('authorization') ?? '');
  return bearer ? bearer[1]! : null;
}

/** What a caller may do: pass, or the reason it may not. */
type Verdict = 'pass' | 'no_key' | 'wrong_key' | 'not_admin';

/**
 * The one key check, for HTTP and gRPC alike: loopback callers pass while `allowLocalhost`;
 * otherwise the presented key must be one of ours (an admin key for `admin` access).
 */
function keyCheck(
  settings: AuthSettings,
): (header: (name: string) => string | undefined, remoteAddress: string | undefined, access: Exclude<Access, 'public'>) => Verdict {
  const adminKeys = settings.adminKeys.map(digest);
  const userKeys = settings.userKeys.map(digest);
  return (header, remoteAddress, access) => {
    if (settings.allowLocalhost && isLoopbackAddress(remoteAddress)) return 'pass';
    const key = presentedKey(header);
    if (key === null) return 'no_key';
    const admin = matchesAny(key, adminKeys);
    if (!(admin || matchesAny(key, userKeys))) return 'wrong_key';
    return access === 'admin' && !admin ? 'not_admin' : 'pass';
  };
}

const KEYS = 'a key of SYNAPSE_API_KEYS, SYNAPSE_ADMIN_KEY or your ~/.synapse/api-key; guides/security.md';
const HOW = `send it as X-API-Key or Authorization: Bearer (${KEYS})`;

function header(req: FastifyRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * API keys for the whole app, as one `onRequest` hook (before any body is read). Off unless
 * `settings.enabled`. A route's `config.access` says who may call it (see `FastifyContextConfig`
 * above); loopback callers pass without a key while `allowLocalhost`. A request without a key,
 * or with a key that is not one of ours, gets 401 `unauthorized`; a user key on an admin route
 * gets 403 `admin_required`. Keys are compared in constant time and never logged or echoed.
 */
export function installAuth(app: FastifyInstance, settings: AuthSettings): void {
  if (!settings.enabled) return;
  const check = keyCheck(settings);
  app.addHook('onRequest', async (req, reply) => {
    const access = req.routeOptions.config?.access ?? 'user';
    if (access === 'public') return;
    const verdict = check((name) => header(req, name), req.socket.remoteAddress, access);
    if (verdict === 'no_key' || verdict === 'wrong_key') {
      reply.header('www-authenticate', 'Bearer realm="synapse"');
      throw new SynapseError(
        'unauthorized',
        verdict === 'no_key' ? `this agent needs an API key: ${HOW}` : `the API key is not one this agent accepts: ${HOW}`,
      );
    }
    if (verdict === 'not_admin') {
      throw new SynapseError('admin_required', 'this route needs the admin key (SYNAPSE_ADMIN_KEY or your ~/.synapse/api-key); the key sent is a user key');
    }
  });
}

/**
 * The same check for the agent's gRPC port (every method is a `user` one: there are no admin
 * gRPC methods). Off (null) unless `settings.enabled`. Given a call's metadata (read by name)
 * and its peer address, it answers null to let the call through, else the details of the
 * UNAUTHENTICATED status to end it with.
 */
export function grpcKeyCheck(
  settings: AuthSettings,
): ((metadata: (name: string) => string | undefined, remoteAddress: string | undefined) => string | null) | null {
  if (!settings.enabled) return null;
  const check = keyCheck(settings);
  const how = `send it in the metadata as x-api-key or authorization: Bearer (${KEYS})`;
  return (metadata, remoteAddress) => {
    const verdict = check(metadata, remoteAddress, 'user');
    if (verdict === 'no_key') return `this agent needs an API key: ${how}`;
    return verdict === 'wrong_key' ? `the API key is not one this agent accepts: ${how}` : null;
  };
}
