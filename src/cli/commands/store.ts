import type { Command } from 'commander';
import { ExitRequest } from '../exit.js';
import { printJson, println, processIo, type CommandIo } from '../io.js';
import { examples, projectDir } from './store-cli.js';
import { registerStoreTransferCommands } from './store-transfer.js';

/**
 * `synapse store status|migrate` (issue 22): which backend holds the shared store (SQLite files or
 * a PostgreSQL database a team shares), its schema versions, row counts and connection health.
 * The store modules load only when one runs.
 */

interface StoreFlags {
  json?: boolean;
  url?: string;
}

async function chosen(flags: StoreFlags) {
  if (flags.url === undefined) return undefined;
  const { parseStoreUrl } = await import('../../store/store-url.js');
  return parseStoreUrl(flags.url);
}

function schemaLine(c: { created: boolean; schema_version: number; latest_version: number }): string {
  if (!c.created) return 'not created yet';
  return `schema ${c.schema_version} of ${c.latest_version}${c.schema_version < c.latest_version ? ' (run synapse store migrate)' : ''}`;
}

/** `schema 1 of 1 · 3 live agents (host-a 1, host-b 2)`; on SQLite the registry files of this host. */
function registryLine(
  backend: string,
  r: { created: boolean; schema_version: number; latest_version: number; location: string; rows: Record<string, number>; hosts: Record<string, number> },
): string {
  const n = r.rows.agents ?? 0;
  const agents = `${n} live agent${n === 1 ? '' : 's'}`;
  if (backend === 'sqlite') return `this host's files (${r.location}) · ${agents}`;
  const hosts = Object.entries(r.hosts).map(([h, c]) => `${h} ${c}`);
  return `${schemaLine(r)} · ${agents}${hosts.length > 0 ? ` (${hosts.join(', ')})` : ''}`;
}

/** `synapse store status`: exit 1 when the store cannot be reached (the JSON says why). */
async function storeStatusCommand(flags: StoreFlags, io: CommandIo): Promise<void> {
  const { storeStatus } = await import('../../store/store-status.js');
  const status = await storeStatus(projectDir(io), { env: io.env, target: await chosen(flags), retryForMs: 3_000 });
  if (flags.json) printJson(io, status);
  else {
    const h = status.health;
    const board = status.components.board;
    println(io, `store     ${status.backend}  ${status.location}`);
    println(
      io,
      `health    ${h.ok ? `ok${h.server_version ? ` (PostgreSQL ${h.server_version}, ${h.latency_ms} ms)` : ''}` : `UNAVAILABLE: ${h.error ?? 'unknown error'}`}`,
    );
    if (h.ok) {
      const memory = status.components.memory;
      println(io, `board     ${schemaLine(board)} · ${board.rows.tasks ?? 0} tasks, ${board.rows.task_deps ?? 0} dependencies`);
      println(io, `memory    ${schemaLine(memory)} · ${memory.rows.notes ?? 0} notes`);
      const files = status.components.file_safety;
      println(io, `files     ${schemaLine(files)} · ${files.rows.locks ?? 0} locks, ${files.rows.changes ?? 0} change records`);
      const history = status.components.history;
      println(
        io,
        `history   ${schemaLine(history)} · ${history.rows.entries ?? 0} entries${history.location ? ` (${history.location}: this user's, every project)` : " (the team's: every host can read every task text)"}`,
      );
      println(io, `registry  ${registryLine(status.backend, status.components.registry)}`);
    }
    if (status.local_only.length > 0) println(io, `local     ${status.local_only.join(', ')}: still in this machine's files (not in the store yet)`);
  }
  if (!status.health.ok) throw new ExitRequest(1);
}

/** `synapse store migrate`: brings the store's tables to the newest schema. */
async function storeMigrateCommand(flags: StoreFlags, io: CommandIo): Promise<void> {
  const { migrateStore } = await import('../../store/store-status.js');
  const result = await migrateStore(projectDir(io), { env: io.env, target: await chosen(flags), retryForMs: 10_000 });
  if (flags.json) return printJson(io, result);
  println(io, `store     ${result.backend}  ${result.location}`);
  for (const [name, c] of Object.entries(result.components).filter((x): x is [string, { from: number; to: number }] => x[1] !== undefined))
    println(io, `${name.replace('_', '-').padEnd(12)}${c.from === c.to ? `schema ${c.to}: up to date` : `schema ${c.from} → ${c.to}`}`);
}

export function registerStoreAdminCommands(program: Command): void {
  const store = program
    .command('store')
    .description(
      'The shared store (task board, shared memory, file locks and change records, task history): SQLite files (default) or a PostgreSQL database a team across machines shares (SYNAPSE_STORE_URL)',
    );
  examples(store, [
    'synapse store status',
    'SYNAPSE_STORE_URL=postgres://synapse:PASSWORD@db.lan:5432/team synapse store migrate',
    'synapse store export team.jsonl && SYNAPSE_STORE_URL=postgres://synapse:PASSWORD@db.lan:5432/team synapse store import team.jsonl',
  ]);
  examples(
    store
      .command('status')
      .description(
        'Backend, schema version, row counts and connection health (with PostgreSQL also the registry table: live agents per host); exit 1 when the store cannot be reached',
      )
      .option('--url <url>', 'a store URL instead of SYNAPSE_STORE_URL / settings store.url (sqlite: or postgres://…)')
      .option('--json', 'print as JSON'),
    [
      'synapse store status',
      'synapse store status --json',
      'synapse store status --url postgres://synapse@db.lan:5432/team',
      "synapse store status --json | jq '.components.registry.hosts'",
    ],
  ).action((o: StoreFlags) => storeStatusCommand(o, processIo()));
  examples(
    store
      .command('migrate')
      .description(
        "Bring the store's tables (board, memory, file safety, history; with PostgreSQL also the registry table) to the newest schema (agents and commands also do this on first use)",
      )
      .option('--url <url>', 'a store URL instead of SYNAPSE_STORE_URL / settings store.url')
      .option('--json', 'print as JSON'),
    ['synapse store migrate', 'synapse store migrate --json'],
  ).action((o: StoreFlags) => storeMigrateCommand(o, processIo()));
  registerStoreTransferCommands(store);
}
