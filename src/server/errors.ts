import type net from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, FastifySchemaValidationError } from 'fastify';
import { isSynapseError, type ErrorCode } from '../errors.js';

/** The one place that maps error codes to HTTP statuses. Bodies are `{error: {code, message}}`. */
const HTTP_STATUS: Partial<Record<ErrorCode, number>> = {
  usage: 400,
  invalid_input: 400,
  forbidden_origin: 403,
  forbidden_host: 403,
  unauthorized: 401,
  admin_required: 403,
  unsupported_media_type: 415,
  target_not_found: 404,
  task_not_found: 404,
  not_found: 404,
  ambiguous_target: 409,
  ambiguous_task: 409,
  conflict: 409,
  not_awaiting_plan: 409,
  delegate_mode: 403,
  spawn_depth_exceeded: 403,
  lock_held: 409,
  blocked: 409,
  task_not_cancelable: 409,
  agent_not_ready: 503,
  answer_timeout: 504,
  agent_unreachable: 502,
  delivery_failed: 502,
  database_error: 500,
  store_unavailable: 503,
  message_too_large: 413,
  too_many_webhooks: 409,
  queue_full: 429,
  idempotency_key_reused: 422,
  message_expired: 410,
  too_many_streams: 429,
};

/** The HTTP status of a Synapse error code; 500 for a code that names no client mistake. */
export function httpStatusFor(code: ErrorCode): number {
  return HTTP_STATUS[code] ?? 500;
}

function shown(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * The message of a failed schema check, one clause per problem. ajv reports a union of literals
 * as "must be equal to constant" once per member plus "must match a schema in anyOf", and an
 * enum as "must be equal to one of the allowed values"; both become "<where> must be one of
 * a, b, c", so the caller learns what to send instead.
 */
function validationMessage(where: string, errors: readonly FastifySchemaValidationError[]): string {
  const oneOf = new Map<FastifySchemaValidationError, unknown[]>();
  const absorbed = new Set<FastifySchemaValidationError>();
  for (const e of errors) {
    if (e.keyword === 'enum' && Array.isArray(e.params.allowedValues)) oneOf.set(e, e.params.allowedValues);
    if (e.keyword !== 'anyOf') continue;
    const branches = errors.filter((b) => b !== e && b.schemaPath.startsWith(`${e.schemaPath}/`));
    if (branches.length === 0 || !branches.every((b) => b.keyword === 'const' && b.instancePath === e.instancePath)) continue;
    oneOf.set(
      e,
      branches.map((b) => b.params.allowedValue),
    );
    for (const b of branches) absorbed.add(b);
  }
  const clauses = errors
    .filter((e) => !absorbed.has(e))
    .map((e) => {
      const values = oneOf.get(e);
      return `${where}${e.instancePath} ${values ? `must be one of ${values.map(shown).join(', ')}` : (e.message ?? e.keyword)}`;
    });
  return [...new Set(clauses)].join(', ');
}

/** How much of a refused body's declared rest the agent reads and drops rather than reset the connection. */
const LINGER_BYTES = 16 * 1024 * 1024;

/**
 * A body over the limit is refused from its Content-Length before it is read, and Fastify then
 * closes the connection. A client still sending that body (most do: they write it whole before
 * they read) got a reset instead of the 413, often before it had read the answer (EPIPE in Node,
 * "connection reset" in curl). When the declared body is at most LINGER_BYTES over the limit the
 * connection stays open instead: Node reads the rest and drops it (as for any body no route read),
 * so the 413 arrives whole and the connection can be used again. A larger one, or one without a
 * length, is still cut off.
 */
function lingerOverLimit(app: FastifyInstance): void {
  const limit = app.initialConfig.bodyLimit ?? 0;
  app.addHook('onSend', (req, reply, payload, done) => {
    if (reply.statusCode === 413 && reply.getHeader('connection') === 'close') {
      const declared = Number(req.headers['content-length']);
      if (Number.isSafeInteger(declared) && declared <= limit + LINGER_BYTES) reply.removeHeader('connection');
    }
    done(null, payload);
  });
}

export function installErrorHandler(app: FastifyInstance): void {
  lingerOverLimit(app);
  app.setErrorHandler((err: FastifyError | Error, _req, reply) => {
    if (isSynapseError(err)) {
      const retryAfter = err.details?.retry_after;
      if (typeof retryAfter === 'number') void reply.header('retry-after', String(retryAfter));
      return reply.status(httpStatusFor(err.code)).send({ error: { code: err.code, message: err.message, ...(err.details ? { details: err.details } : {}) } });
    }
    const fe = err as FastifyError;
    if (fe.code === 'SQLITE_BUSY' || fe.code === 'SQLITE_LOCKED') {
      // Another process holds the database longer than the busy timeout: a moment's wait, not a fault.
      return reply
        .status(503)
        .header('retry-after', '5')
        .send({ error: { code: 'database_busy', message: `the database is locked by another process (${fe.message}): try again in a few seconds` } });
    }
    if (fe.validation) {
      const message = validationMessage(fe.validationContext ?? 'request', fe.validation);
      return reply.status(400).send({ error: { code: 'invalid_input', message } });
    }
    if (fe.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      return reply.status(413).send({ error: { code: 'body_too_large', message: fe.message } });
    }
    if (fe.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      return reply.status(415).send({ error: { code: 'unsupported_media_type', message: fe.message } });
    }
    if (typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
      return reply.status(fe.statusCode).send({ error: { code: 'invalid_input', message: fe.message } });
    }
    reply.log.error(err);
    return reply.status(500).send({ error: { code: 'internal', message: 'internal error' } });
  });
  app.setNotFoundHandler((req, reply) => {
    reply.status(404).send({ error: { code: 'not_found', message: `no route ${req.method} ${req.url}` } });
  });
}

/**
 * Fastify's own answers to a URL it cannot route (a malformed percent-encoding, a path
 * parameter over its length limit), in our shape: its defaults answer `{error: "Bad Request",
 * code: "FST_ERR_…"}` and echo the raw path, control bytes and all.
 */
export function frameworkErrors(err: FastifyError, _req: FastifyRequest, reply: FastifyReply): void {
  if (err.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    void reply.status(414).send({ error: { code: 'invalid_input', message: 'a path segment is too long: ids and names are at most 100 characters' } });
    return;
  }
  void reply.status(400).send({ error: { code: 'invalid_input', message: 'the URL is not valid: percent-encode it as UTF-8' } });
}

const CLIENT_ERRORS: Record<string, { status: number; text: string; message: string }> = {
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, text: 'Request Timeout', message: 'the request took too long to arrive' },
  HPE_HEADER_OVERFLOW: { status: 431, text: 'Request Header Fields Too Large', message: 'the request headers are too large' },
};

/**
 * A request Node's HTTP parser refuses (an unknown method, bytes that are not HTTP, a body
 * without framing) gets an error body in our shape before the connection closes; Fastify's
 * default writes `{"error":"Bad Request","message":"Client Error"}`, which no client can read a
 * code from.
 */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: net.Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const known = CLIENT_ERRORS[err.code ?? ''] ?? { status: 400, text: 'Bad Request', message: 'the request is not valid HTTP/1.1' };
  const body = JSON.stringify({ error: { code: 'invalid_input', message: known.message } });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${known.status} ${known.text}\r\nConnection: close\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
