import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { A2A_PATHS } from '../a2a/paths.js';
import { SynapseError } from '../errors.js';

/**
 * What a web page may do to an agent. Agents listen on loopback ports that are easy to guess
 * (8100…), and a page the user merely visits can send "simple" cross-origin POSTs without a CORS
 * preflight (`text/plain`, form encodings, or a body with no type at all). Two rules close that,
 * before any body is parsed or any handler runs:
 *
 * - a request that carries an `Origin` header is refused (403) unless that origin is the agent's
 *   own or listed in `SYNAPSE_CORS_ORIGINS`; only the public agent cards may be read from any page
 *   (curl, the CLI and other agents send no `Origin`, and pass as before);
 * - a request with a body (or a `Content-Type`) must be JSON: `application/json`, and on the A2A
 *   HTTP+JSON binding also `application/a2a+json` (A2A §11.1, §14.1.1); anything else is
 *   `unsupported_media_type`, which each scope's error handler answers in its own shape (415 on
 *   Synapse's routes, `ContentTypeNotSupportedError` on the A2A bindings).
 */
export interface RequestGuardOptions {
  /** The agent's port: its own origins are `http(s)://127.0.0.1:<port>`, `http(s)://localhost:<port>`, `http(s)://[::1]:<port>`. */
  port: number;
  /** Further allowed origins, already checked and serialized (`SYNAPSE_CORS_ORIGINS`). */
  corsOrigins?: readonly string[];
  /** The host names the agent answers to besides loopback (`--host`, `SYNAPSE_ALLOWED_HOSTS`): `http(s)://<name>:<port>` are its own origins too. */
  hosts?: readonly string[];
}

/** The public agent cards: discovery documents, readable from any origin. */
const PUBLIC_CARDS: ReadonlySet<string> = new Set(['/.well-known/agent.json', A2A_PATHS.card]);

const JSON_TYPE = 'application/json';
/** A2A's registered media type (the SDK's `A2A_CONTENT_TYPE`; not imported: the SDK loads lazily). */
const A2A_JSON_TYPE = 'application/a2a+json';

/** Request headers a page on an allowed origin may send (the ones the routes read). */
const PREFLIGHT_HEADERS = 'content-type, accept, a2a-version, a2a-extensions, x-a2a-extensions, last-event-id';

/** Both schemes: a page the agent itself serves has one of them, whether it runs TLS or not. */
function ownOrigins(port: number, hosts: readonly string[]): string[] {
  const names = [...new Set(['127.0.0.1', 'localhost', '[::1]', ...hosts])];
  return ['http', 'https'].flatMap((scheme) => names.map((h) => `${scheme}://${h}:${port}`));
}

function headerValue(req: FastifyRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** The media types a route takes: the A2A HTTP+JSON binding also takes `application/a2a+json`. */
function acceptedTypes(route: string | undefined): readonly string[] {
  return route?.startsWith(`${A2A_PATHS.rest}/`) ? [JSON_TYPE, A2A_JSON_TYPE] : [JSON_TYPE];
}

function hasBody(req: FastifyRequest): boolean {
  const length = headerValue(req, 'content-length');
  return headerValue(req, 'transfer-encoding') !== undefined || (length !== undefined && length !== '0');
}

/** Refuses a body that is not JSON; a body-less request with no `Content-Type` passes. */
function checkContentType(req: FastifyRequest): void {
  if (req.method === 'GET' || req.method === 'HEAD') return;
  const accepted = acceptedTypes(req.routeOptions.url);
  const raw = headerValue(req, 'content-type');
  const expected = accepted.join(' or ');
  if (raw === undefined) {
    if (hasBody(req)) throw new SynapseError('unsupported_media_type', `a request body needs Content-Type: ${expected}`);
    return;
  }
  const type = raw.split(';', 1)[0]!.trim().toLowerCase();
  if (!accepted.includes(type)) throw new SynapseError('unsupported_media_type', `Content-Type "${raw}" is not accepted: send ${expected}`);
}

/** Answers a CORS preflight from an allowed origin with the minimal allow headers. */
function answerPreflight(reply: FastifyReply, origin: string): FastifyReply {
  return reply
    .status(204)
    .headers({
      'access-control-allow-origin': origin,
      'access-control-allow-methods': 'GET, POST, DELETE',
      'access-control-allow-headers': PREFLIGHT_HEADERS,
      'access-control-max-age': '600',
      vary: 'Origin',
    })
    .send();
}

/** Installs the origin and content-type rules as one `onRequest` hook of the whole app. */
export function installRequestGuard(app: FastifyInstance, opts: RequestGuardOptions): void {
  const allowed = new Set([...ownOrigins(opts.port, opts.hosts ?? []), ...(opts.corsOrigins ?? [])]);
  app.addHook('onRequest', async (req, reply) => {
    const origin = headerValue(req, 'origin');
    if (origin !== undefined) {
      if (allowed.has(origin.toLowerCase())) {
        if (req.method === 'OPTIONS' && headerValue(req, 'access-control-request-method') !== undefined) return answerPreflight(reply, origin);
        reply.header('access-control-allow-origin', origin).header('vary', 'Origin');
      } else if (!((req.method === 'GET' || req.method === 'HEAD') && PUBLIC_CARDS.has(req.routeOptions.url ?? ''))) {
        throw new SynapseError(
          'forbidden_origin',
          `Origin "${origin}" is not allowed: only the agent's own origins and SYNAPSE_CORS_ORIGINS may call it from a web page`,
        );
      }
    }
    checkContentType(req);
  });
}
