import type { Env } from '../config/paths.js';
import type { RegistryEntry } from '../registry/entry.js';
import { hostName } from '../registry/host.js';
import { projectIdentity, type ProjectIdentity } from '../registry/project-identity.js';
import type { PgAgentRegistry } from '../store/registry-pg.js';
import { storeTarget } from '../store/store-url.js';
import { isLoopbackHost } from '../server/host-check.js';
import { envSetting } from '../config/env-setting.js';

/**
 * The endpoint other hosts use and whether they can. An advertised address
 * (`SYNAPSE_ADVERTISE_HOST`, already in the endpoint) or a specific bound address is used as it
 * is; a wildcard bind without an advertised address gets the host name; a loopback endpoint
 * nobody advertised is registered as unreachable (listed, never sent to: another host's
 * 127.0.0.1 is itself).
 */
export function remoteReach(endpoint: string, at: { bind: string; host: string; advertised: boolean }): { endpoint: string; reachable: boolean } {
  if (at.advertised) return { endpoint, reachable: true };
  const url = new URL(endpoint);
  if (['0.0.0.0', '::', '[::]'].includes(at.bind)) {
    url.hostname = at.host;
    return { endpoint: url.toString().replace(/\/$/, ''), reachable: true };
  }
  return { endpoint, reachable: !isLoopbackHost(url.hostname) };
}

/** How long a clean stop waits for the store to delete the row. */
const STOP_WAIT_MS = 3_000;

/**
 * The agent's row in the registry table of a PostgreSQL store (issue 22 §2), kept beside its
 * registry file: written at start, on every status change and heartbeat (`put`), deleted on a
 * clean stop. An agent killed without a stop leaves its row to expire (3 heartbeats).
 *
 * Writes never hold the agent up: one is in flight at a time and only the newest entry waits
 * behind it. A store that cannot be reached is logged once (and once more when it is back);
 * the agent goes on, its file entry is unaffected.
 *
 * `pg` is loaded at the first write, and only for a project whose store is PostgreSQL.
 */
export class RegistryMirror {
  private registry: Promise<PgAgentRegistry> | null = null;
  private inFlight: Promise<void> | null = null;
  private next: RegistryEntry | null = null;
  private stopped = false;
  private failing = false;
  private readonly project: ProjectIdentity;

  private constructor(
    private readonly url: string,
    private readonly host: string,
    private readonly bind: string,
    private readonly heartbeatMs: number,
    private readonly advertised: boolean,
    workingDir: string,
    private readonly log: (line: string) => void,
  ) {
    this.project = projectIdentity(workingDir);
  }

  /** A mirror for an agent in `workingDir`, or null when its project's store is not PostgreSQL. */
  static forAgent(opts: { workingDir: string; env: Env; bind: string; heartbeatMs: number; log: (line: string) => void }): RegistryMirror | null {
    const target = storeTarget(opts.workingDir, opts.env);
    if (target.backend !== 'postgres') return null;
    const advertised = Boolean(envSetting(opts.env, 'SYNAPSE_ADVERTISE_HOST')?.trim());
    return new RegistryMirror(target.url, hostName(opts.env), opts.bind, opts.heartbeatMs, advertised, opts.workingDir, opts.log);
  }

  private open(): Promise<PgAgentRegistry> {
    if (!this.registry) {
      const opening = import('../store/registry-pg.js').then((m) => m.PgAgentRegistry.open(this.url, { retryForMs: 2_000 }));
      this.registry = opening;
      opening.catch(() => {
        if (this.registry === opening) this.registry = null; // the next write tries again
      });
    }
    return this.registry;
  }

  private reach(endpoint: string): { endpoint: string; reachable: boolean } {
    return remoteReach(endpoint, { bind: this.bind, host: this.host, advertised: this.advertised });
  }

  put(entry: RegistryEntry): void {
    if (this.stopped) return;
    this.next = entry;
    this.inFlight ??= this.drain();
  }

  private async drain(): Promise<void> {
    while (this.next && !this.stopped) {
      const entry = this.next;
      this.next = null;
      try {
        await (await this.open()).put({ host: this.host, entry, ...this.reach(entry.endpoint), project: this.project, heartbeatMs: this.heartbeatMs });
        if (this.failing) this.log('registry table: writing again');
        this.failing = false;
      } catch (err) {
        if (!this.failing) this.log(`registry table: cannot write this agent's row (other hosts may not see it): ${(err as Error).message}`);
        this.failing = true;
      }
    }
    this.inFlight = null;
  }

  /** Live agents on other hosts have this endpoint (reply routing posts answers only to registered agents). */
  async hasEndpoint(endpoint: string): Promise<boolean> {
    try {
      return (await (await this.open()).listFresh(this.host)).some((e) => e.endpoint === endpoint);
    } catch {
      return false; // unknown counts as not registered: no answer goes to an address nobody vouches for
    }
  }

  /**
   * A clean stop: no more writes, the row deleted, the connection closed. A store that does not
   * answer holds the shutdown up for at most STOP_WAIT_MS; the row then expires by heartbeat.
   */
  async stop(agentId: string): Promise<void> {
    this.stopped = true;
    this.next = null;
    let timer: NodeJS.Timeout | undefined;
    const gaveUp = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), STOP_WAIT_MS);
      timer.unref();
    });
    const outcome = await Promise.race([this.removeRow(agentId), gaveUp]);
    clearTimeout(timer);
    if (outcome === 'timeout') this.log(`registry table: no answer within ${STOP_WAIT_MS} ms; this agent's row expires by heartbeat`);
  }

  private async removeRow(agentId: string): Promise<'done'> {
    await this.inFlight;
    if (!this.registry) return 'done';
    try {
      const registry = await this.registry;
      await registry.remove(this.host, agentId);
      await registry.close();
    } catch (err) {
      this.log(`registry table: cannot delete this agent's row (it expires by heartbeat): ${(err as Error).message}`);
    }
    return 'done';
  }
}

/**
 * What `Presence` needs for the table: the mirror (null without a PostgreSQL store, or when the
 * store setting cannot be read: the file registry still works, and the log says why) and the
 * heartbeat interval (`SYNAPSE_HEARTBEAT_MS`).
 */
export function presenceRemote(
  workingDir: string,
  env: Env,
  bind: string,
  log: (line: string) => void,
): { mirror: RegistryMirror | null; heartbeatMs: number } {
  const heartbeatMs = envSetting(env, 'SYNAPSE_HEARTBEAT_MS');
  try {
    return { mirror: RegistryMirror.forAgent({ workingDir, env, bind, heartbeatMs, log }), heartbeatMs };
  } catch (err) {
    log(`registry table: not used (${(err as Error).message})`);
    return { mirror: null, heartbeatMs };
  }
}
