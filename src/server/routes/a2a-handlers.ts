import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { A2A_CONTENT_TYPE, AgentCard } from '@a2a-js/sdk';
import { A2AError, A2A_ERROR_CODE, ContentTypeNotSupportedError } from '@a2a-js/sdk/errors';
import { JsonRpcTransportHandler } from '@a2a-js/sdk/server';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import { isSynapseError, type SynapseError } from '../../errors.js';
import { CardCache } from '../card-cache.js';
import { httpStatusFor } from '../errors.js';
import { legacyCardJson } from '../../a2a/sdk/card.js';
import { A2aService, type A2aServiceOptions } from '../../a2a/sdk/service.js';
import { handleJsonRpc } from './a2a-jsonrpc.js';
import { restHandlers, sendRestError, type RestOp } from './a2a-rest.js';
import { requestedVersion } from './a2a-version.js';
import type { StreamSlots } from '../stream-slots.js';

export interface A2aHandlers {
  service: A2aService;
  jsonrpc(path: 'main' | 'v03', req: FastifyRequest, reply: FastifyReply): Promise<unknown>;
  rest: Record<RestOp, (req: FastifyRequest, reply: FastifyReply) => Promise<unknown>>;
  card(req: FastifyRequest, reply: FastifyReply): unknown;
  /** An error raised before a handler ran (refused origin or content type, body too large …), in the binding's own shape. */
  early(binding: Binding, err: FastifyError | SynapseError, reply: FastifyReply): unknown;
}

type Binding = 'rest' | 'jsonrpc' | 'jsonrpc-v03';

/**
 * A body that is not JSON, refused before it was parsed, as A2A's `ContentTypeNotSupportedError`
 * (-32005). HTTP+JSON answers 415 Unsupported Media Type with that error's `google.rpc.Status`
 * (reason `CONTENT_TYPE_NOT_SUPPORTED`): the request's own media type is refused at the HTTP level
 * (RFC 9110 §15.5.16), as A2A 1.0.0's table and the A2A TCK have it. (A2A 1.0.1 maps the error to
 * 400, meant for a message part's media type the agent does not take; the SDK's REST server
 * answers 400 here too.) JSON-RPC answers HTTP 200 with the error envelope: JSON-RPC errors travel
 * in the envelope (§9.5), and the SDK's own JSON-RPC server answers an unsupported content type the
 * same way.
 */
function contentTypeRefused(binding: Binding, message: string, reply: FastifyReply): unknown {
  const err = new ContentTypeNotSupportedError(message);
  if (binding === 'rest') return sendRestError(reply, err, 415);
  const error = binding === 'jsonrpc-v03' ? LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError(err) : JsonRpcTransportHandler.mapToJSONRPCError(err);
  return reply.status(200).send({ jsonrpc: '2.0', id: null, error });
}

/** Everything that needs the SDK, loaded on first use (the SDK costs ~70 ms to import). */
export function createA2aHandlers(opts: A2aServiceOptions, streams: StreamSlots): A2aHandlers {
  const service = new A2aService(opts);
  const cards = new CardCache();
  return {
    service,
    jsonrpc: (path, req, reply) => handleJsonRpc(service, streams, path, req, reply),
    rest: restHandlers(service, streams),
    card: (req, reply) => {
      const card = service.card();
      // Only an explicit request for 0.3 gets the old shape; no header means a plain fetch.
      const legacy = requestedVersion(req) === '0.3';
      return cards.send(req, reply, legacy ? legacyCardJson(card) : AgentCard.toJSON(card), { variant: legacy ? '0.3' : '1.0', vary: 'A2A-Version' });
    },
    early: (binding, err, reply) => {
      if (isSynapseError(err) && err.code === 'unsupported_media_type') return contentTypeRefused(binding, err.message, reply);
      const status = isSynapseError(err) ? httpStatusFor(err.code) : typeof err.statusCode === 'number' && err.statusCode >= 400 ? err.statusCode : 500;
      // google.rpc.Status names a refused origin or key PERMISSION_DENIED, a missing or wrong key
      // UNAUTHENTICATED; the SDK has no A2A error for either.
      if (binding === 'rest' && (status === 403 || status === 401))
        return reply
          .status(status)
          .type(A2A_CONTENT_TYPE)
          .send({ error: { code: status, status: status === 401 ? 'UNAUTHENTICATED' : 'PERMISSION_DENIED', message: err.message, details: [] } });
      if (binding === 'rest') return sendRestError(reply, new A2AError(err.message), status);
      const code = status < 500 ? A2A_ERROR_CODE.INVALID_REQUEST : A2A_ERROR_CODE.INTERNAL_ERROR;
      return reply.status(status).send({ jsonrpc: '2.0', id: null, error: { code, message: status < 500 ? err.message : 'internal error' } });
    },
  };
}
