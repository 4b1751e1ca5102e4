import type { FastifyInstance } from 'fastify';
import type { AppOptions } from '../server/app.js';
import { buildApp } from '../server/app.js';
import { allowedHostNames } from '../server/host-check.js';
import type { PortClaim } from './port-claim.js';

/**
 * The agent's HTTP face on the port it claimed: the Fastify app is attached to the claim's
 * already-listening server (which answered 503 "starting" until then).
 */
export class AgentHttp {
  private app: FastifyInstance | null = null;

  constructor(
    private readonly claim: PortClaim,
    private readonly host: string,
    private readonly options: Omit<AppOptions, 'server' | 'hosts'>,
    /** `SYNAPSE_ALLOWED_HOSTS`. */
    private readonly allowedHosts: readonly string[] = [],
  ) {}

  async start(): Promise<void> {
    const hosts = allowedHostNames(this.host, this.allowedHosts);
    this.app = await buildApp({ ...this.options, server: this.claim.server, hosts });
    await this.app.ready();
    this.claim.attached();
  }

  /** Closes the app, or only the claimed port when the app never started. */
  async stop(): Promise<void> {
    if (this.app) await this.app.close();
    else this.claim.server.close();
  }
}
