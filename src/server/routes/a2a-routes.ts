import type { FastifyError, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { CardInput } from '../../a2a/card.js';
import type { ServerTls } from '../../config/tls.js';
import type { SynapseError } from '../../errors.js';
import { A2A_PATHS } from '../../a2a/paths.js';
import { grpcKeyCheck, PUBLIC_ROUTE } from '../auth.js';
import type { AuthSettings } from '../../config/auth-keys.js';
import type { A2aService } from '../../a2a/sdk/service.js';
import { listenGrpc, type GrpcHandle } from '../../a2a/sdk/grpc-server.js';
import type { AgentApi } from '../../agent-api/agent-api.js';
import type { A2aHandlers } from './a2a-handlers.js';
import type { RestOp } from './a2a-rest.js';
import type { StreamSlots } from '../stream-slots.js';

export interface A2aRouteOptions {
  api: AgentApi;
  /** What the card says about this agent, read on every card request. */
  card: () => CardInput;
  /** gRPC port (the agent's port + 1000), or null for no gRPC (apps used through inject). */
  grpcPort?: number | null;
  /** Largest gRPC message read (`SYNAPSE_MAX_BODY_BYTES`). */
  grpcMaxMessageBytes?: number;
  /** The agent's SSE stream slots, shared with Synapse's own streams. */
  streams: StreamSlots;
  /** Host gRPC binds to; the agent binds loopback only. */
  grpcHost?: string;
  /** gRPC over TLS with the agent's certificate (`SYNAPSE_USE_HTTPS`). */
  grpcTls?: ServerTls;
  /** API keys: gRPC calls need one as the HTTP routes do (`SYNAPSE_AUTH_ENABLED`). */
  auth?: AuthSettings;
  log?: (msg: string) => void;
  /** Push retry waits in ms (tests). */
  pushBackoffMs?: readonly number[];
  /** Receives the service once built (tests reach its stores through it). */
  onService?: (service: A2aService) => void;
}

/** HTTP+JSON resources under /a2a/rest/v1 (each also with a trailing slash). */
const REST_ROUTES: ReadonlyArray<readonly ['GET' | 'POST' | 'DELETE', string, RestOp]> = [
  ['POST', '/:verb', 'verb'],
  ['GET', '/tasks', 'listTasks'],
  ['GET', '/tasks/:task', 'task'],
  ['POST', '/tasks/:task', 'task'],
  ['POST', '/tasks/:id/pushNotificationConfigs', 'createPush'],
  ['GET', '/tasks/:id/pushNotificationConfigs', 'listPush'],
  ['GET', '/tasks/:id/pushNotificationConfigs/:configId', 'getPush'],
  ['DELETE', '/tasks/:id/pushNotificationConfigs/:configId', 'deletePush'],
  ['GET', '/extendedAgentCard', 'extendedCard'],
];

/**
 * Standard A2A on every agent, over the same tasks as Synapse's own routes: JSON-RPC 2.0
 * (A2A 1.0, and 0.3 for older clients), HTTP+JSON, the v1.0 agent card and, for a real agent,
 * gRPC on its own port. Encapsulated on purpose: bodies reach this scope as raw strings (so a
 * malformed one gets the protocol's own error, not Fastify's 400), and errors are answered in
 * the protocol's shapes. The SDK loads on the first A2A request and gRPC on the first gRPC
 * connection (its port listens from the start): an idle agent carries neither (guides/a2a.md).
 */
export const a2aRoutes: FastifyPluginAsync<A2aRouteOptions> = async (app, opts) => {
  let loading: Promise<A2aHandlers> | null = null;
  let grpc: GrpcHandle | null = null;
  const load = (): Promise<A2aHandlers> =>
    (loading ??= import('./a2a-handlers.js').then(({ createA2aHandlers }) => {
      const handlers = createA2aHandlers(
        {
          api: opts.api,
          card: opts.card,
          log: opts.log ?? (() => undefined),
          grpcAddress: () => grpc?.address ?? null,
          ...(opts.pushBackoffMs ? { pushBackoffMs: opts.pushBackoffMs } : {}),
        },
        opts.streams,
      );
      opts.onService?.(handlers.service);
      return handlers;
    }));

  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, text, done) => done(null, text));

  // Failures before a handler runs (a refused origin or content type, body too large, …):
  // JSON-RPC envelope or REST status body.
  app.setErrorHandler(async (err: FastifyError | SynapseError, req, reply) => {
    const binding = req.url.startsWith(A2A_PATHS.rest) ? 'rest' : req.url.startsWith(A2A_PATHS.jsonrpcV03) ? 'jsonrpc-v03' : 'jsonrpc';
    return (await load()).early(binding, err, reply);
  });

  const jsonrpc = (path: 'main' | 'v03') => async (req: FastifyRequest, reply: FastifyReply) => (await load()).jsonrpc(path, req, reply);
  for (const url of [A2A_PATHS.jsonrpc, `${A2A_PATHS.jsonrpc}/`]) app.post(url, jsonrpc('main'));
  for (const url of [A2A_PATHS.jsonrpcV03, `${A2A_PATHS.jsonrpcV03}/`]) app.post(url, jsonrpc('v03'));

  for (const [method, path, op] of REST_ROUTES) {
    const handler = async (req: FastifyRequest, reply: FastifyReply) => (await load()).rest[op](req, reply);
    for (const url of [`${A2A_PATHS.rest}${path}`, `${A2A_PATHS.rest}${path}/`]) app.route({ method, url, handler });
  }
  app.all(`${A2A_PATHS.rest}/*`, async (req, reply) => (await load()).rest.unknown(req, reply));

  app.get(A2A_PATHS.card, PUBLIC_ROUTE, async (req, reply) => (await load()).card(req, reply));

  // The gRPC port listens once the app is ready (binding is all it costs until a client
  // connects); a failure (port taken) is logged and the card omits gRPC.
  const grpcPort = opts.grpcPort;
  if (grpcPort) {
    app.addHook('onReady', async () => {
      const host = opts.grpcHost ?? '127.0.0.1';
      const log = opts.log ?? (() => undefined);
      try {
        grpc = await listenGrpc(host, grpcPort, async () => (await load()).service.handler, log, {
          ...(opts.grpcMaxMessageBytes ? { maxMessageBytes: opts.grpcMaxMessageBytes } : {}),
          ...(opts.grpcTls ? { tls: opts.grpcTls } : {}),
          check: opts.auth ? grpcKeyCheck(opts.auth) : null,
        });
        log(`a2a gRPC${opts.grpcTls ? ' (TLS)' : ''} listening on ${grpc.address}`);
      } catch (err) {
        log(`a2a gRPC not started on ${host}:${grpcPort}: ${(err as Error).message}`);
      }
    });
  }
  app.addHook('onClose', async () => {
    await grpc?.close();
    if (loading) (await loading).service.close();
  });
};
