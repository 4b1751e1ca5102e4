#!/usr/bin/env node
// The shared store's claim race on each backend (issue 22; build first: npm run build).
//
//   node bench/store.mjs [--backend sqlite|postgres|both] [--url postgres://…] [--tasks 2000]
//                        [--procs 8] [--json] [--exact] [--no-list] [--agents 50]
//
// N pending tasks; P processes each try to claim every task, all in the same order, so they
// collide on every one, through the asynchronous board interface (src/store/board-store.ts).
// Prints successful claims per second and the p50/p99 latency of one claim call (every attempt,
// won or refused), per backend, and whether every task had exactly one winner (exit 1 if not).
// Then `synapse list` with --agents registered agents on each registry backend (bench/list.mjs,
// the file registry and the PostgreSQL registry table); --no-list leaves that out.
//
// PostgreSQL: --url (or SYNAPSE_STORE_URL) names a server; the bench makes a fresh database on it
// and drops it after. Without one, it starts a private server for the run (initdb + pg_ctl from
// Debian's postgresql package, test/support/postgres-server.mjs) and stops it after.
import { execFile, fork } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { freshDatabase } from './pg.mjs';
import { openBoard } from '../dist/store/board-store.js';
import { redactUrl } from '../dist/redact.js';

const self = fileURLToPath(import.meta.url);

const { values: args } = parseArgs({
  options: {
    backend: { type: 'string', default: 'both' },
    url: { type: 'string' },
    tasks: { type: 'string', default: '2000' },
    procs: { type: 'string', default: '8' },
    json: { type: 'boolean', default: false },
    // Use --url's database as it is (no fresh database, nothing dropped): the tests check its rows.
    exact: { type: 'boolean', default: false },
    'no-list': { type: 'boolean', default: false },
    agents: { type: 'string', default: '50' },
    // internal: a worker process
    worker: { type: 'string' },
    target: { type: 'string' },
  },
});

function int(name) {
  const n = Number(args[name]);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a positive integer`);
  return n;
}

function inbox(child) {
  const queue = [];
  const waiting = [];
  child.on('message', (m) => (waiting.length ? waiting.shift()(m) : queue.push(m)));
  child.on('exit', (code) => {
    if (code !== 0) for (const w of waiting.splice(0)) w({ type: 'error', error: `worker exited with code ${code}` });
  });
  return () =>
    new Promise((resolve, reject) => {
      const take = (m) => (m.type === 'error' ? reject(new Error(m.error)) : resolve(m));
      if (queue.length) take(queue.shift());
      else waiting.push(take);
    });
}

// ── worker ──────────────────────────────────────────────────────────────────────────────────

async function worker(name, target) {
  const board = await openBoard(target.dir ?? os.tmpdir(), { target: target.store });
  process.on('message', async (m) => {
    try {
      if (m.type === 'claim') {
        const won = [];
        const latencies = [];
        let lost = 0;
        const t0 = performance.now();
        for (const id of m.ids) {
          const s = performance.now();
          try {
            await board.claim(id, name);
            won.push(id);
          } catch (err) {
            if (err.code !== 'conflict') throw err;
            lost++;
          }
          latencies.push(performance.now() - s);
        }
        process.send({ type: 'claimed', won, lost, latencies, ms: performance.now() - t0 });
      } else if (m.type === 'exit') {
        await board.close();
        process.disconnect();
      }
    } catch (err) {
      process.send({ type: 'error', error: String(err?.stack ?? err) });
    }
  });
  process.send({ type: 'ready' });
}

// ── parent ──────────────────────────────────────────────────────────────────────────────────

function percentile(sorted, p) {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** One race on one backend; `target` is what openBoard takes plus the project dir for SQLite. */
async function race(label, target, nTasks, nProcs, log) {
  const board = await openBoard(target.dir ?? os.tmpdir(), { target: target.store });
  const children = [];
  try {
    const ids = [];
    for (let i = 0; i < nTasks; i += 500) {
      const batch = Array.from({ length: Math.min(500, nTasks - i) }, (_, k) => ({ subject: `task ${i + k}` }));
      for (const t of await board.createMany(batch)) ids.push(t.id);
    }
    for (let i = 0; i < nProcs; i++) {
      const child = fork(self, ['--worker', `worker-${i}`, '--target', JSON.stringify(target)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
      children.push({ name: `worker-${i}`, child, next: inbox(child) });
    }
    await Promise.all(children.map((c) => c.next()));
    const t0 = performance.now();
    for (const c of children) c.child.send({ type: 'claim', ids });
    const results = await Promise.all(children.map((c) => c.next()));
    const ms = performance.now() - t0;
    const winners = new Map();
    let duplicates = 0;
    results.forEach((r, i) => {
      for (const id of r.won) {
        if (winners.has(id)) duplicates++;
        winners.set(id, children[i].name);
      }
    });
    const wanted = new Set(ids);
    const rows = (await board.list()).filter((t) => wanted.has(t.id));
    const mismatched = rows.filter((t) => t.status !== 'in_progress' || t.claimed_by !== winners.get(t.id)).length;
    const lost = ids.filter((id) => !winners.has(id)).length;
    const latencies = results.flatMap((r) => r.latencies).sort((a, b) => a - b);
    const attempts = latencies.length;
    const ok = duplicates === 0 && lost === 0 && mismatched === 0 && winners.size === nTasks && attempts === nTasks * nProcs;
    const result = {
      backend: label,
      ok,
      tasks: nTasks,
      processes: nProcs,
      attempts,
      seconds: ms / 1000,
      claims_per_second: Math.round(nTasks / (ms / 1000)),
      attempts_per_second: Math.round(attempts / (ms / 1000)),
      claim_latency_ms: { p50: +percentile(latencies, 50).toFixed(3), p99: +percentile(latencies, 99).toFixed(3) },
      duplicates,
      lost,
      mismatched,
      wins_per_process: Object.fromEntries(results.map((r, i) => [children[i].name, r.won.length])),
      winners: args.json ? Object.fromEntries(winners) : undefined,
    };
    log(
      `${label.padEnd(8)} ${nProcs} processes × ${nTasks} tasks: ${result.claims_per_second} claims/s (${result.attempts_per_second} attempts/s), ` +
        `claim latency p50 ${result.claim_latency_ms.p50} ms, p99 ${result.claim_latency_ms.p99} ms; ` +
        (ok ? 'OK: every task exactly one winner' : `FAIL: ${duplicates} double claims, ${lost} without a winner, ${mismatched} stored claimants differ`),
    );
    return result;
  } finally {
    for (const c of children) if (c.child.connected) c.child.send({ type: 'exit' });
    await Promise.all(children.map((c) => (c.child.exitCode !== null ? null : new Promise((r) => c.child.once('exit', r)))));
    await board.close();
  }
}

async function main() {
  const nTasks = int('tasks');
  const nProcs = int('procs');
  const backends = args.backend === 'both' ? ['sqlite', 'postgres'] : [args.backend];
  for (const b of backends) if (b !== 'sqlite' && b !== 'postgres') throw new Error(`--backend must be sqlite, postgres or both, not ${b}`);
  const log = (line) => {
    if (!args.json) process.stdout.write(`${line}\n`);
  };
  const results = [];
  for (const backend of backends) {
    if (backend === 'sqlite') {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'synapse-store-bench-'));
      try {
        results.push(await race('sqlite', { dir, store: { backend: 'sqlite' } }, nTasks, nProcs, log));
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
      continue;
    }
    let server = null;
    let base = args.url ?? process.env.SYNAPSE_STORE_URL;
    if (!base) {
      const { startPostgres } = await import('../test/support/postgres-server.mjs');
      const started = await startPostgres();
      if (!started.ok) throw new Error(`no PostgreSQL server given (--url) and none could be started: ${started.reason}`);
      server = started.server;
      base = server.url;
      log(`postgres: a private server for this run on 127.0.0.1:${server.port}`);
    }
    try {
      const db = args.exact ? { url: base, drop: async () => {} } : await freshDatabase(base, 'synapse_bench');
      try {
        const store = { backend: 'postgres', url: db.url, shown: redactUrl(db.url) };
        results.push(await race('postgres', { store }, nTasks, nProcs, log));
      } finally {
        await db.drop();
      }
    } finally {
      server?.stop();
    }
  }
  const list = args['no-list'] || args.exact ? null : await listBench();
  if (args.json) process.stdout.write(`${JSON.stringify({ results, list })}\n`);
  process.exitCode = results.every((r) => r.ok) && (list === null || list.ok) ? 0 : 1;
}

/** `synapse list` with --agents registered agents per registry backend: bench/list.mjs, in its own process. */
async function listBench() {
  const listArgs = [fileURLToPath(new URL('./list.mjs', import.meta.url)), '--agents', args.agents];
  if (args.url) listArgs.push('--url', args.url);
  if (args.json) listArgs.push('--json');
  return new Promise((resolve) => {
    execFile(process.execPath, listArgs, { maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (!args.json) process.stdout.write(stdout);
      if (err) process.stderr.write(stderr);
      let figures = null;
      if (args.json) {
        try {
          figures = JSON.parse(stdout);
        } catch {
          figures = null;
        }
      }
      resolve({ ok: !err, figures });
    });
  });
}

if (args.worker) await worker(args.worker, JSON.parse(args.target));
else await main();
