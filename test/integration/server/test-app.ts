import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { AuthSettings } from '../../../src/config/auth-keys.js';
import { buildApp } from '../../../src/server/app.js';
import { AGENT_DB_MIGRATIONS } from '../../../src/store/agent-db-migrations.js';
import { openDatabase } from '../../../src/store/sqlite.js';
import { WebhookStore } from '../../../src/store/webhooks.js';
import { fakeRuntime } from '../a2a/fake-runtime.js';

export interface Route {
  method: string;
  url: string;
}

export interface TestApp {
  app: FastifyInstance;
  /** Closes the app, the fake runtime and the webhook database. */
  close(): Promise<void>;
}

/**
 * The agent's real app over a fake runtime (see ../a2a/fake-runtime.ts), with webhooks as an
 * agent has them, working in `<home>/project`; `onRoute` is told of every route it registers.
 */
export async function testApp(opts: {
  home: string;
  env: NodeJS.ProcessEnv;
  port: number;
  thinkMs?: number;
  corsOrigins?: string[];
  onRoute?: (route: Route) => void;
  /** API keys, as an agent reads them (config/auth-keys.ts). */
  auth?: AuthSettings;
  /** The Host names the app answers to (server/host-check.ts). */
  hosts?: ReadonlySet<string>;
}): Promise<TestApp> {
  const project = path.join(opts.home, 'project');
  fs.mkdirSync(project, { recursive: true });
  const rt = fakeRuntime({ port: opts.port, ...(opts.thinkMs !== undefined ? { thinkMs: opts.thinkMs } : {}) });
  const db = openDatabase(path.join(opts.home, `agent-${opts.port}.db`), AGENT_DB_MIGRATIONS);
  const app = await buildApp({
    api: rt.api,
    displayName: 'Echo',
    description: 'test',
    workingDir: project,
    agentId: `synapse-echo-${opts.port}`,
    env: opts.env,
    webhooks: new WebhookStore(db),
    ...(opts.corsOrigins ? { corsOrigins: opts.corsOrigins } : {}),
    ...(opts.onRoute ? { onRoute: opts.onRoute } : {}),
    ...(opts.auth ? { auth: opts.auth } : {}),
    ...(opts.hosts ? { hosts: opts.hosts } : {}),
  });
  await app.ready();
  return {
    app,
    close: async () => {
      await app.close();
      rt.close();
      db.close();
    },
  };
}

/** Every route the agent's app registers (HEAD included), as the app's onRoute hook reports them. */
export async function appRoutes(home: string, env: NodeJS.ProcessEnv, port: number): Promise<Route[]> {
  const routes: Route[] = [];
  const t = await testApp({ home, env, port, onRoute: (r) => routes.push(r) });
  await t.close();
  return routes;
}
