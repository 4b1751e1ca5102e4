import type { FastifyReply, FastifyRequest } from 'fastify';
import { AgentCard } from '@a2a-js/sdk';
import { A2AError, A2A_ERROR_CODE } from '@a2a-js/sdk/errors';
import { legacyCardJson } from '../../a2a/sdk/card.js';
import { A2aService, type A2aServiceOptions } from '../../a2a/sdk/service.js';
import { handleJsonRpc } from './a2a-jsonrpc.js';
import { restHandlers, sendRestError, type RestOp } from './a2a-rest.js';
import { requestedVersion } from './a2a-version.js';

export interface A2aHandlers {
  service: A2aService;
  jsonrpc(path: 'main' | 'v03', req: FastifyRequest, reply: FastifyReply): Promise<unknown>;
  rest: Record<RestOp, (req: FastifyRequest, reply: FastifyReply) => Promise<unknown>>;
  card(req: FastifyRequest, reply: FastifyReply): unknown;
  /** An error raised before a handler ran (body too large …), in the binding's own shape. */
  early(binding: 'rest' | 'jsonrpc', status: number, message: string, reply: FastifyReply): unknown;
}

/** Everything that needs the SDK, loaded on first use (the SDK costs ~70 ms to import). */
export function createA2aHandlers(opts: A2aServiceOptions): A2aHandlers {
  const service = new A2aService(opts);
  return {
    service,
    jsonrpc: (path, req, reply) => handleJsonRpc(service, path, req, reply),
    rest: restHandlers(service),
    card: (req, reply) => {
      const card = service.card();
      // Only an explicit request for 0.3 gets the old shape; no header means a plain fetch.
      reply.header('vary', 'A2A-Version');
      return reply.send(requestedVersion(req) === '0.3' ? legacyCardJson(card) : AgentCard.toJSON(card));
    },
    early: (binding, status, message, reply) => {
      if (binding === 'rest') return sendRestError(reply, new A2AError(message), status);
      const code = status < 500 ? A2A_ERROR_CODE.INVALID_REQUEST : A2A_ERROR_CODE.INTERNAL_ERROR;
      return reply.status(status).send({ jsonrpc: '2.0', id: null, error: { code, message: status < 500 ? message : 'internal error' } });
    },
  };
}
