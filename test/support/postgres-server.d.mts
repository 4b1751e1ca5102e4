// Types for postgres-server.mjs.

export interface PostgresServer {
  /** postgres://synapse:<password>@127.0.0.1:<port>/postgres */
  url: string;
  port: number;
  dataDir: string;
  /** Stops the server and removes its temp directory (idempotent). */
  stop(): void;
}

export type PostgresStart = { ok: true; server: PostgresServer } | { ok: false; reason: string };

/** Starts a private server on a free loopback port, or says why it cannot. */
export function startPostgres(): Promise<PostgresStart>;
