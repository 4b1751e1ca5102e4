#!/usr/bin/env node
// `synapse list` with N registered agents on each registry backend (issue 22; build first: npm run build).
//
//   node bench/list.mjs [--agents 50] [--runs 15] [--url postgres://…] [--json]
//
// file:     N entries in a temp file registry (SYNAPSE_REGISTRY_DIR), this host's agents, no store.
// postgres: N rows in the registry table of a PostgreSQL store, all on another host (the file
//           registry is empty), read by `synapse list` through SYNAPSE_STORE_URL.
// Each run is one `synapse list --json` process (start-up included, as a user waits for it);
// prints p50, p90 and the slowest run per backend, and checks every run listed N agents.
//
// PostgreSQL: --url (or SYNAPSE_STORE_URL) names a server; the bench makes a fresh database on it
// and drops it after. Without one, it starts a private server for the run and stops it after.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { promisify } from 'node:util';
import { freshDatabase } from './pg.mjs';
import { FileRegistry } from '../dist/registry/registry.js';
import { PgAgentRegistry } from '../dist/store/registry-pg.js';

const BIN = fileURLToPath(new URL('../bin/synapse.js', import.meta.url));
const run = promisify(execFile);
const { values: args } = parseArgs({
  options: {
    agents: { type: 'string', default: '50' },
    runs: { type: 'string', default: '15' },
    url: { type: 'string' },
    json: { type: 'boolean', default: false },
  },
});
const nAgents = Number(args.agents);
const nRuns = Number(args.runs);
const log = (line) => {
  if (!args.json) process.stdout.write(`${line}\n`);
};

/** An entry of a live agent: this process's pid (alive), a fresh heartbeat. */
function entry(i, now) {
  const port = 20000 + i;
  return {
    agent_id: `synapse-echo-${port}`,
    agent_type: 'echo',
    name: `bench-${i}`,
    role: null,
    port,
    pid: process.pid,
    pid_starttime: null,
    working_dir: os.tmpdir(),
    endpoint: `http://10.0.0.${(i % 250) + 1}:${port}`,
    status: 'READY',
    status_updated_at: now,
    current_task_preview: null,
    task_received_at: null,
    registered_at: now,
    heartbeat_at: now,
    log_file: null,
    headless: true,
    synapse_version: 'bench',
  };
}

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

async function measure(label, env, cwd) {
  const times = [];
  for (let i = 0; i < nRuns; i++) {
    const t0 = performance.now();
    const { stdout } = await run(process.execPath, [BIN, 'list', '--json'], { env, cwd, maxBuffer: 16 << 20 });
    times.push(performance.now() - t0);
    const listed = JSON.parse(stdout).length;
    if (listed !== nAgents) throw new Error(`${label}: listed ${listed} agents, not ${nAgents}`);
  }
  times.sort((a, b) => a - b);
  const r = {
    backend: label,
    agents: nAgents,
    runs: nRuns,
    p50_ms: +quantile(times, 0.5).toFixed(1),
    p90_ms: +quantile(times, 0.9).toFixed(1),
    max_ms: +times.at(-1).toFixed(1),
  };
  log(`${label.padEnd(8)} synapse list --json, ${nAgents} agents, ${nRuns} runs: p50 ${r.p50_ms} ms, p90 ${r.p90_ms} ms, slowest ${r.max_ms} ms`);
  return r;
}

async function main() {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'synapse-list-bench-'));
  const cwd = path.join(home, 'project');
  fs.mkdirSync(cwd);
  const base = { ...process.env, HOME: home, SYNAPSE_HOME: path.join(home, '.synapse'), SYNAPSE_HOST_NAME: 'bench-here' };
  delete base.SYNAPSE_STORE_URL;
  const results = [];
  let server = null;
  try {
    const now = new Date().toISOString();
    const files = new FileRegistry(path.join(home, 'registry-file'));
    for (let i = 0; i < nAgents; i++) files.write(entry(i, now));
    results.push(await measure('file', { ...base, SYNAPSE_REGISTRY_DIR: files.dir }, cwd));

    let url = args.url ?? process.env.SYNAPSE_STORE_URL;
    if (!url) {
      const { startPostgres } = await import('../test/support/postgres-server.mjs');
      const started = await startPostgres();
      if (!started.ok) throw new Error(`no PostgreSQL server given (--url) and none could be started: ${started.reason}`);
      server = started.server;
      url = server.url;
      log(`postgres: a private server for this run on 127.0.0.1:${server.port}`);
    }
    const db = await freshDatabase(url, 'synapse_listbench');
    try {
      const table = await PgAgentRegistry.open(db.url);
      // A long heartbeat: no row expires during the runs.
      const project = { remote: null, branch: null };
      for (let i = 0; i < nAgents; i++) {
        const e = entry(i, now);
        await table.put({ host: 'bench-there', entry: e, endpoint: e.endpoint, reachable: true, project, heartbeatMs: 3_600_000 });
      }
      await table.close();
      const env = { ...base, SYNAPSE_REGISTRY_DIR: path.join(home, 'registry-empty'), SYNAPSE_STORE_URL: db.url };
      results.push(await measure('postgres', env, cwd));
    } finally {
      await db.drop();
    }
  } finally {
    server?.stop();
    fs.rmSync(home, { recursive: true, force: true });
  }
  if (args.json) process.stdout.write(`${JSON.stringify({ results })}\n`);
}

await main();
