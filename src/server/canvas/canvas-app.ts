import type * as FastifyModule from 'fastify';
import type { FastifyInstance } from 'fastify';
import type * as WebsocketPlugin from '@fastify/websocket';
import { requireCjs } from '../../require-cjs.js';
import type { Env } from '../../config/paths.js';
import { CanvasStore } from '../../store/canvas.js';
import { clientErrorHandler, frameworkErrors, installErrorHandler } from '../errors.js';
import { allowedHostNames, hostCheck, installHostCheck } from '../host-check.js';
import { installRequestGuard } from '../request-guard.js';
import { CanvasLive } from './canvas-live.js';
import { canvasRoutes, type CanvasSend } from './canvas-routes.js';
import { staticRoutes } from './canvas-static.js';

const { fastify: Fastify } = requireCjs('fastify') as typeof FastifyModule;

export interface CanvasAppOptions {
  env: Env;
  /** The project whose task board the Board view shows. */
  projectDir: string;
  /** The port it will listen on: its own origins are `http://127.0.0.1:<port>` and `http://localhost:<port>`. */
  port: number;
  send: CanvasSend;
  jump: (target: string) => Promise<string>;
  /** What `GET /api/status` answers besides the client count. */
  info?: () => Record<string, unknown>;
  /** Told of every route as it is registered (the hostile-input test drives each one). */
  onRoute?: (route: { method: string; url: string }) => void;
  pollMs?: number;
}

export interface CanvasApp {
  app: FastifyInstance;
  canvas: CanvasStore;
  live: CanvasLive;
}

/**
 * The Canvas dashboard's server: the web app, its JSON routes and its WebSocket, on loopback,
 * with the agent's own trust rules (Host check against DNS rebinding; foreign `Origin` and
 * non-JSON bodies refused before any handler runs).
 */
export async function buildCanvasApp(opts: CanvasAppOptions): Promise<CanvasApp> {
  const app = Fastify({ logger: false, bodyLimit: 8 * 1024 * 1024, forceCloseConnections: true, frameworkErrors, clientErrorHandler });
  installErrorHandler(app);
  const onRoute = opts.onRoute;
  if (onRoute) {
    app.addHook('onRoute', (r) => {
      for (const method of [r.method].flat()) onRoute({ method, url: r.url });
    });
  }
  installHostCheck(app, hostCheck(allowedHostNames('127.0.0.1')));
  installRequestGuard(app, { port: opts.port });

  const canvas = CanvasStore.open(opts.env);
  const live = new CanvasLive(opts.env, opts.projectDir, canvas, opts.pollMs);
  app.addHook('onClose', async () => {
    live.stop();
    canvas.close();
  });

  const websocket = requireCjs('@fastify/websocket') as typeof WebsocketPlugin;
  await app.register(websocket.default, { options: { maxPayload: 64 * 1024 } });
  app.get('/ws', { websocket: true }, (socket) => live.add(socket));
  // An upgrade refused by the guards (403, 404) keeps its socket open unless told otherwise; such a
  // socket would hold the server open at close, so it is ended with the refusal.
  app.addHook('onResponse', async (req, reply) => {
    if (req.headers.upgrade !== undefined && reply.statusCode >= 400) req.raw.socket.destroy();
  });

  canvasRoutes(app, { env: opts.env, canvas, live, send: opts.send, jump: opts.jump, info: opts.info ?? (() => ({})) });
  staticRoutes(app, opts.port);
  live.start();
  return { app, canvas, live };
}
