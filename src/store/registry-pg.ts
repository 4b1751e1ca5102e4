import { checkRegistryEntry, type RegistryEntry } from '../registry/entry.js';
import { PgDb, type PgMigration, migrateComponent, withPgDb } from './pg-db.js';

/**
 * The registry table of a PostgreSQL store (issue 22 §2): every agent whose project uses a
 * `postgres://` store also registers itself here (the file registry stays as it is, for this
 * host and the original Synapse), so that `synapse list` and `synapse send` on other hosts find it.
 *
 * A row is keyed by (host, agent_id): ids are unique per host (the port is bound there). The
 * heartbeat is the database's own clock (`now()`), so hosts whose clocks disagree still agree on
 * expiry: a row not rewritten for 3 of its agent's heartbeats (`heartbeat_ms`, written with the
 * row) is expired, hidden from every reader and deleted by the first one that lists.
 *
 * Loaded only with a PostgreSQL store (it loads `pg`).
 */

const EXPIRY_HEARTBEATS = 3;

const MIGRATIONS: PgMigration[] = [
  {
    version: 1,
    sql: `CREATE TABLE IF NOT EXISTS synapse_agents (
      host TEXT NOT NULL,
      agent_id TEXT NOT NULL,
      agent_type TEXT NOT NULL,
      name TEXT,
      role TEXT,
      status TEXT NOT NULL,
      endpoint TEXT NOT NULL,
      working_dir TEXT NOT NULL,
      project_remote TEXT,
      project_branch TEXT,
      entry JSONB NOT NULL,
      heartbeat_ms INTEGER NOT NULL CHECK (heartbeat_ms > 0),
      registered_at TIMESTAMPTZ NOT NULL,
      heartbeat_at TIMESTAMPTZ NOT NULL DEFAULT now(),
      PRIMARY KEY (host, agent_id)
    );
    CREATE INDEX IF NOT EXISTS synapse_agents_heartbeat ON synapse_agents (heartbeat_at);`,
  },
];

/** What one agent writes about itself: its entry and what other hosts need besides it. */
export interface AgentRow {
  host: string;
  entry: RegistryEntry;
  /** The endpoint other hosts use (the advertised address), which may differ from the file entry's. */
  endpoint: string;
  /** False when the endpoint is a loopback address nobody advertised: other hosts cannot reach it. */
  reachable: boolean;
  project: { remote: string | null; branch: string | null };
  heartbeatMs: number;
}

/** A row as read: the entry (with `host`, `reachable`, `project`), the heartbeat by the database's clock. */
export type RemoteEntry = RegistryEntry & { host: string; reachable: boolean; project: { remote: string | null; branch: string | null } };

const FRESH = `heartbeat_at > now() - make_interval(secs => heartbeat_ms * ${EXPIRY_HEARTBEATS} / 1000.0)`;

export class PgAgentRegistry {
  private constructor(private readonly db: PgDb) {}

  static async open(url: string, options: { retryForMs?: number } = {}): Promise<PgAgentRegistry> {
    const db = new PgDb(url, { max: 2, ...(options.retryForMs !== undefined ? { retryForMs: options.retryForMs } : {}) });
    try {
      await db.migrate('registry', MIGRATIONS);
    } catch (err) {
      await db.close();
      throw err;
    }
    return new PgAgentRegistry(db);
  }

  /** Registers or refreshes one agent (start, status change, heartbeat). */
  async put(row: AgentRow): Promise<void> {
    const e = row.entry;
    const entry = { ...e, endpoint: row.endpoint, reachable: row.reachable, project: row.project };
    await this.db.tx(
      (q) =>
        q(
          `INSERT INTO synapse_agents (host, agent_id, agent_type, name, role, status, endpoint, working_dir, project_remote, project_branch, entry, heartbeat_ms, registered_at, heartbeat_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, now())
           ON CONFLICT (host, agent_id) DO UPDATE SET agent_type = EXCLUDED.agent_type, name = EXCLUDED.name, role = EXCLUDED.role,
             status = EXCLUDED.status, endpoint = EXCLUDED.endpoint, working_dir = EXCLUDED.working_dir, project_remote = EXCLUDED.project_remote,
             project_branch = EXCLUDED.project_branch, entry = EXCLUDED.entry, heartbeat_ms = EXCLUDED.heartbeat_ms,
             registered_at = EXCLUDED.registered_at, heartbeat_at = now()`,
          [
            row.host,
            e.agent_id,
            e.agent_type,
            e.name,
            e.role,
            e.status,
            row.endpoint,
            e.working_dir,
            row.project.remote,
            row.project.branch,
            JSON.stringify(entry),
            row.heartbeatMs,
            e.registered_at,
          ],
        ),
      { autocommit: true },
    );
  }

  async remove(host: string, agentId: string): Promise<void> {
    await this.db.tx((q) => q(`DELETE FROM synapse_agents WHERE host = $1 AND agent_id = $2`, [host, agentId]), { autocommit: true });
  }

  /**
   * The agents whose heartbeat is fresh, on every host but `exceptHost` (this host's come from
   * its files), sorted by host and id. Expired rows are deleted on the way (whoever lists prunes).
   */
  async listFresh(exceptHost: string | null): Promise<RemoteEntry[]> {
    await this.db.tx((q) => q(`DELETE FROM synapse_agents WHERE NOT (${FRESH})`), { autocommit: true });
    const rows = await this.db.query<{ host: string; entry: unknown; heartbeat_at: Date }>(
      `SELECT host, entry, heartbeat_at FROM synapse_agents WHERE ${FRESH} AND host IS DISTINCT FROM $1 ORDER BY host, agent_id`,
      [exceptHost],
    );
    const out: RemoteEntry[] = [];
    for (const r of rows) {
      const checked = checkRegistryEntry(r.entry);
      if (!checked.entry) continue; // a row another program wrote wrongly: not an agent anyone can reach
      const raw = r.entry as { reachable?: unknown; project?: { remote?: unknown; branch?: unknown } };
      out.push({
        ...checked.entry,
        heartbeat_at: r.heartbeat_at.toISOString(),
        host: r.host,
        reachable: raw.reachable === true,
        project: {
          remote: typeof raw.project?.remote === 'string' ? raw.project.remote : null,
          branch: typeof raw.project?.branch === 'string' ? raw.project.branch : null,
        },
      });
    }
    return out;
  }

  close(): Promise<void> {
    return this.db.close();
  }
}

/** The newest schema of the registry table (`synapse store status`). */
const REGISTRY_LATEST_VERSION = MIGRATIONS.at(-1)!.version;

/**
 * `synapse store status`: the registry table's schema version and its live agents (heartbeat
 * fresh), in all and per host. Creates nothing and deletes nothing (expired rows are left for the
 * next list).
 */
export function pgRegistryStatus(
  url: string,
  options: { retryForMs?: number } = {},
): Promise<{ schema_version: number; latest_version: number; rows: Record<string, number>; hosts: Record<string, number> }> {
  return withPgDb(url, options, async (db) => {
    const version = await db.schemaVersion('registry');
    const rows =
      version > 0
        ? await db.query<{ host: string; n: number }>(`SELECT host, COUNT(*)::int AS n FROM synapse_agents WHERE ${FRESH} GROUP BY host ORDER BY host`)
        : [];
    const hosts: Record<string, number> = {};
    for (const r of rows) hosts[r.host] = r.n;
    return { schema_version: version, latest_version: REGISTRY_LATEST_VERSION, rows: { agents: rows.reduce((sum, r) => sum + r.n, 0) }, hosts };
  });
}

/** `synapse store migrate`: creates or upgrades the registry table. */
export function pgRegistryMigrate(url: string, options: { retryForMs?: number } = {}): Promise<{ from: number; to: number }> {
  return migrateComponent(url, 'registry', MIGRATIONS, options);
}
