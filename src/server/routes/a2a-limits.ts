import type { FastifyReply } from 'fastify';
import { A2A_CONTENT_TYPE } from '@a2a-js/sdk';
import { A2A_ERROR_CODE } from '@a2a-js/sdk/errors';
import type { ErrorCode, SynapseError } from '../../errors.js';
import { limitOf } from '../../a2a/sdk/limit-error.js';
import { httpStatusFor } from '../errors.js';

/**
 * JSON-RPC code of a limit that passes with time (a sender's full queue, too many streams): one
 * of JSON-RPC 2.0's implementation-defined server errors (-32000 to -32099), away from the ones
 * A2A assigns (-32001 to -32009). A message over the size limits is invalid params (-32602).
 */
const RPC_LIMIT_REACHED = -32090;

function rpcCode(code: ErrorCode): number {
  return code === 'message_too_large' ? A2A_ERROR_CODE.INVALID_PARAMS : RPC_LIMIT_REACHED;
}

function withRetryAfter(reply: FastifyReply, err: SynapseError): FastifyReply {
  const after = err.details?.retry_after;
  return typeof after === 'number' ? reply.header('retry-after', String(after)) : reply;
}

/** The JSON-RPC `error` of a limit: its code, the message, and `data` with Synapse's code and details (queue depth …). */
function rpcLimitError(err: SynapseError): { code: number; message: string; data: Record<string, unknown> } {
  return { code: rpcCode(err.code), message: err.message, data: { synapse_code: err.code, ...(err.details ?? {}) } };
}

/**
 * Answers a JSON-RPC call a limit refused: HTTP 413 or 429 (with Retry-After), so that plain
 * HTTP clients back off too, and the JSON-RPC envelope with the error. Null when `err` is no limit.
 */
export function sendRpcLimit(reply: FastifyReply, id: string | number | null, err: unknown): FastifyReply | null {
  const limit = limitOf(err);
  if (!limit) return null;
  return withRetryAfter(reply, limit)
    .status(httpStatusFor(limit.code))
    .send({ jsonrpc: '2.0', id, error: rpcLimitError(limit) });
}

/** The same for HTTP+JSON: 413 INVALID_ARGUMENT or 429 RESOURCE_EXHAUSTED (google.rpc.Status), Retry-After. */
export function sendRestLimit(reply: FastifyReply, err: unknown): FastifyReply | null {
  const limit = limitOf(err);
  if (!limit) return null;
  const status = httpStatusFor(limit.code);
  const metadata: Record<string, string> = { synapseCode: limit.code };
  for (const [k, v] of Object.entries(limit.details ?? {})) if (typeof v === 'string' || typeof v === 'number') metadata[k] = String(v);
  return withRetryAfter(reply, limit)
    .status(status)
    .type(A2A_CONTENT_TYPE)
    .send({
      error: {
        code: status,
        status: status === 413 ? 'INVALID_ARGUMENT' : 'RESOURCE_EXHAUSTED',
        message: limit.message,
        details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: limit.code.toUpperCase(), domain: 'synapse', metadata }],
      },
    });
}
