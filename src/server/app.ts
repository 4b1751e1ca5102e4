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
import { installAuth } from './auth.js';
import { hostCheck, installHostCheck } from './host-check.js';
import type { AuthSettings } from '../config/auth-keys.js';
import { a2aRoutes } from './routes/a2a-routes.js';
import { agentRoutes } from './routes/agent.js';
import { externalRoutes } from './routes/external.js';
import { replyRoutes } from './routes/replies.js';
import { streamRoutes } from './routes/streams.js';
import { taskRoutes } from './routes/tasks.js';
import { teamStoreRoutes } from './routes/team-store.js';
import { teamRoutes } from './routes/team.js';
import { webhookRoutes } from './routes/webhooks.js';
import type { WebhookStore } from '../store/webhooks.js';
import { schemaCompilers, type SchemaCompilers } from './validators.js';
import { DEFAULT_LIMITS, type Limits } from '../config/limits.js';
import { StreamSlots } from './stream-slots.js';

const { fastify: Fastify } = requireCjs('fastify') as typeof FastifyModule;

export interface AppOptions {
  api: AgentApi;
  displayName: string;
  description: string;
  workingDir: string;
  agentId: string;
  env: Env;
  /** Body size, message size, per-sender queue, SSE streams (the MAX settings, config/limits.ts); the defaults without it. */
  limits?: Limits;
  /**
   * The host names a request's `Host` may carry (see host-check.ts: the bound address's own names
   * and `SYNAPSE_ALLOWED_HOSTS`); any other gets 403 (DNS-rebinding guard). They are the agent's
   * own origins too. Unset: no Host check (apps used through `inject`).
   */
  hosts?: ReadonlySet<string>;
  /** API keys (`SYNAPSE_AUTH_ENABLED` …, config/auth-keys.ts); unset or disabled: no keys needed. */
  auth?: AuthSettings;
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

/** The agent's HTTP app; built the same for `inject` in tests and for `listen`. */
export async function buildApp(opts: AppOptions): Promise<FastifyInstance> {
  const server = opts.server;
  const limits = opts.limits ?? DEFAULT_LIMITS;
  const streams = new StreamSlots(limits.sseStreams);
  const app = Fastify({
    logger: false,
    bodyLimit: limits.bodyBytes,
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
  // Host first, then origin and content type, then the key: all before a body is read.
  if (opts.hosts) installHostCheck(app, hostCheck(opts.hosts));
  installRequestGuard(app, {
    port: opts.api.entry().port,
    ...(opts.corsOrigins ? { corsOrigins: opts.corsOrigins } : {}),
    ...(opts.hosts ? { hosts: [...opts.hosts] } : {}),
  });
  if (opts.auth) installAuth(app, opts.auth);
  const secured = opts.auth?.enabled === true;
  await app.register(agentRoutes, { api: opts.api, displayName: opts.displayName, description: opts.description, secured });
  await app.register(taskRoutes, { api: opts.api });
  await app.register(streamRoutes, { api: opts.api, streams });
  await app.register(replyRoutes, { api: opts.api });
  await app.register(teamStoreRoutes, { workingDir: opts.workingDir, agentId: opts.agentId, env: opts.env });
  if (opts.webhooks) await app.register(webhookRoutes, { store: opts.webhooks });
  // Standard A2A (JSON-RPC, HTTP+JSON, v0.3, gRPC on port + 1000) over the same tasks.
  await app.register(a2aRoutes, {
    api: opts.api,
    card: () => ({ self: opts.api.entry(), displayName: opts.displayName, description: opts.description, peers: opts.api.peers(), secured }),
    grpcPort: opts.server ? opts.api.entry().port + 1000 : null,
    grpcMaxMessageBytes: limits.bodyBytes,
    streams,
    ...(opts.tls ? { grpcTls: opts.tls } : {}),
    ...(opts.auth ? { auth: opts.auth } : {}),
    ...(opts.log ? { log: opts.log } : {}),
  });
  await app.register(externalRoutes, { env: opts.env });
  await app.register(teamRoutes, { api: opts.api });
  return app;
}
