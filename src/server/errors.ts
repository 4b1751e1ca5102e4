import type { FastifyError, FastifyInstance } from 'fastify';
import { isSynapseError, type ErrorCode } from '../errors.js';

/** The one place that maps error codes to HTTP statuses. Bodies are `{error: {code, message}}`. */
const HTTP_STATUS: Partial<Record<ErrorCode, number>> = {
  usage: 400,
  invalid_input: 400,
  target_not_found: 404,
  task_not_found: 404,
  not_found: 404,
  ambiguous_target: 409,
  ambiguous_task: 409,
  conflict: 409,
  lock_held: 409,
  blocked: 409,
  task_not_cancelable: 409,
  agent_not_ready: 503,
  answer_timeout: 504,
  agent_unreachable: 502,
  delivery_failed: 502,
  database_error: 500,
};

export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError | Error, _req, reply) => {
    if (isSynapseError(err)) {
      return reply.status(HTTP_STATUS[err.code] ?? 500).send({ error: { code: err.code, message: err.message, ...(err.details ? { details: err.details } : {}) } });
    }
    const fe = err as FastifyError;
    if (fe.validation) {
      return reply.status(400).send({ error: { code: 'invalid_input', message: fe.message } });
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
