import type http from 'node:http';
import type https from 'node:https';
import type * as FastifyModule from 'fastify';
import type { FastifyInstance } from 'fastify';
import { requireCjs } from '../require-cjs.js';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Env } from '../config/paths.js';
import type { ServerTls } from '../config/tls.js';
import type { AgentApi } from '../agent-api/agent-api.js';
import { clientErrorHandler, frameworkErrors, installErrorHandler } from './errors.js';
import { installRequestGuard } from './request-guard.js';
import { a2aRoutes } from './routes/a2a-routes.js';
import { agentRoutes } from './routes/agent.js';
import { externalRoutes } from './routes/external.js';
import { replyRoutes } from './routes/replies.js';
import { streamRoutes } from './routes/streams.js';
import { taskRoutes } from './routes/tasks.js';
import { teamStoreRoutes } from './routes/team-store.js';
import { webhookRoutes } from './routes/webhooks.js';
import type { WebhookStore } from '../store/webhooks.js';
import { schemaCompilers, type SchemaCompilers } from './validators.js';

const { fastify: Fastify } = requireCjs('fastify') as typeof FastifyModule;

export interface AppOptions {
  api: AgentApi;
  displayName: string;
  description: string;
  workingDir: string;
  agentId: string;
  env: Env;
  /** Bytes; bodies above it get 413. */
  bodyLimit?: number;
  /** When set, requests whose Host header is not in it get 403 (DNS-rebinding guard). */
  allowedHosts?: (host: string) => boolean;
  /**
   * Web origins allowed besides the agent's own (`SYNAPSE_CORS_ORIGINS`, checked and serialized);
   * a request with any other `Origin` gets 403 (see request-guard.ts).
   */
  corsOrigins?: readonly string[];
  /** The agent's event log. */
  log?: (msg: string) => void;
  /** The agent's webhooks; without it there are no /webhooks routes. */
  webhooks?: WebhookStore;
  /** Told of every route as it is registered (the drive-by test drives each one that takes a body). */
  onRoute?: (route: { method: string; url: string }) => void;
  /** An already-listening server (the port claim); without it the app is for `inject`/`listen`. */
  server?: http.Server | https.Server;
  /** The agent serves over TLS with this certificate: its gRPC port does too. */
  tls?: ServerTls | null;
  /** Build time only: the compilers that record each route's validator (scripts/emit-schemas.mjs). */
  schemaCompilers?: SchemaCompilers;
}

const DEFAULT_BODY_LIMIT = 8 * 1024 * 1024;

/** Loopback names only: a page on some other origin cannot reach the agent through DNS tricks. */
export function loopbackHostCheck(host: string): boolean {
  const name = host.replace(/:\d+$/, '').toLowerCase();
  return name === '127.0.0.1' || name === 'localhost' || name === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(name);
}

/** The agent's HTTP app; built the same for `inject` in tests and for `listen`. */
export async function buildApp(opts: AppOptions): Promise<FastifyInstance> {
  const server = opts.server;
  const app = Fastify({
    logger: false,
    bodyLimit: opts.bodyLimit ?? DEFAULT_BODY_LIMIT,
    forceCloseConnections: true,
    // Errors before a route runs (an unroutable URL, bytes that are not HTTP) in our error shape too.
    frameworkErrors,
    clientErrorHandler,
    // Validators come precompiled from the build (or compile on first use): none at ready().
    schemaController: { compilersFactory: opts.schemaCompilers ?? schemaCompilers() },
    ...(server
      ? {
          serverFactory: (handler: http.RequestListener) => {
            server.on('request', handler);
            return server;
          },
        }
      : {}),
  }).withTypeProvider<TypeBoxTypeProvider>();
  installErrorHandler(app);
  const onRoute = opts.onRoute;
  if (onRoute) {
    app.addHook('onRoute', (r) => {
      for (const method of [r.method].flat()) onRoute({ method, url: r.url });
    });
  }
  if (opts.allowedHosts) {
    const allowed = opts.allowedHosts;
    app.addHook('onRequest', async (req, reply) => {
      if (!allowed(req.headers.host ?? '')) {
        return reply.status(403).send({ error: { code: 'forbidden_host', message: `Host "${req.headers.host ?? ''}" is not allowed` } });
      }
    });
  }
  installRequestGuard(app, { port: opts.api.entry().port, ...(opts.corsOrigins ? { corsOrigins: opts.corsOrigins } : {}) });
  await app.register(agentRoutes, { api: opts.api, displayName: opts.displayName, description: opts.description });
  await app.register(taskRoutes, { api: opts.api });
  await app.register(streamRoutes, { api: opts.api });
  await app.register(replyRoutes, { api: opts.api });
  await app.register(teamStoreRoutes, { workingDir: opts.workingDir, agentId: opts.agentId, env: opts.env });
  if (opts.webhooks) await app.register(webhookRoutes, { store: opts.webhooks });
  // Standard A2A (JSON-RPC, HTTP+JSON, v0.3, gRPC on port + 1000) over the same tasks.
  await app.register(a2aRoutes, {
    api: opts.api,
    card: () => ({ self: opts.api.entry(), displayName: opts.displayName, description: opts.description, peers: opts.api.peers() }),
    grpcPort: opts.server ? opts.api.entry().port + 1000 : null,
    ...(opts.tls ? { grpcTls: opts.tls } : {}),
    ...(opts.log ? { log: opts.log } : {}),
  });
  await app.register(externalRoutes, { env: opts.env });
  return app;
}
