#!/usr/bin/env node
// Concurrency proof and benchmark for the shared store (build first: npm run build).
//
//   node bench/board-race.mjs [--tasks 10000] [--procs 8] [--locks 100] [--lock-rounds 20]
//                             [--dir DIR] [--json] [--keep]
//
// Board: N pending tasks; P processes each try to claim every task, all in the same order so
// they collide on every single one. Locks: P processes each try to take every one of L file
// locks; the parent checks the winners, releases everything and starts the next round.
// Every claim and lock is a real `BEGIN IMMEDIATE` transaction on one SQLite file (WAL); claims go
// through the asynchronous board interface every caller uses (src/store/board-store.ts).
// The output states whether every task and every lock had exactly one winner; the exit code
// is 1 when not.
import { fork } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { openBoard } from '../dist/store/board-store.js';
import { FileSafetyStore } from '../dist/store/file-safety.js';

const self = fileURLToPath(import.meta.url);

const { values: args } = parseArgs({
  options: {
    tasks: { type: 'string', default: '10000' },
    procs: { type: 'string', default: '8' },
    locks: { type: 'string', default: '100' },
    'lock-rounds': { type: 'string', default: '20' },
    dir: { type: 'string' },
    json: { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
    worker: { type: 'string' },
  },
});

/** Messages from a child, one at a time, in order. */
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

async function worker(name, dir) {
  const board = await openBoard(dir, { target: { backend: 'sqlite' } });
  const locks = FileSafetyStore.forProject(dir, {});
  process.on('message', async (m) => {
    try {
      if (m.type === 'claim') {
        const won = [];
        let lost = 0;
        const t0 = performance.now();
        for (const id of m.ids) {
          try {
            await board.claim(id, name);
            won.push(id);
          } catch (err) {
            if (err.code !== 'conflict') throw err;
            lost++;
          }
        }
        process.send({ type: 'claimed', won, lost, ms: performance.now() - t0 });
      } else if (m.type === 'lock') {
        const won = [];
        let lost = 0;
        for (const p of m.paths) {
          try {
            locks.lock({ path: p, agent: name, pid: process.pid, ttlMs: 600_000 });
            won.push(p);
          } catch (err) {
            if (err.code !== 'lock_held') throw err;
            lost++;
          }
        }
        process.send({ type: 'locked', won, lost });
      } else if (m.type === 'exit') {
        await board.close();
        locks.close();
        process.disconnect();
      }
    } catch (err) {
      process.send({ type: 'error', error: String(err?.stack ?? err) });
    }
  });
  process.send({ type: 'ready' });
}

// ── parent ──────────────────────────────────────────────────────────────────────────────────

function int(name) {
  const n = Number(args[name]);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a positive integer`);
  return n;
}

async function main() {
  const nTasks = int('tasks');
  const nProcs = int('procs');
  const nLocks = int('locks');
  const rounds = int('lock-rounds');
  const dir = args.dir ? path.resolve(args.dir) : fs.mkdtempSync(path.join(os.tmpdir(), 'synapse-race-'));
  fs.mkdirSync(dir, { recursive: true });
  const log = (line) => {
    if (!args.json) process.stdout.write(`${line}\n`);
  };
  const children = [];
  try {
    // Setup: the tasks, in batches (one transaction each).
    const board = await openBoard(dir, { target: { backend: 'sqlite' } });
    const ids = [];
    for (let i = 0; i < nTasks; i += 1000) {
      const batch = Array.from({ length: Math.min(1000, nTasks - i) }, (_, k) => ({ subject: `task ${i + k}` }));
      for (const t of await board.createMany(batch)) ids.push(t.id);
    }
    const locks = FileSafetyStore.forProject(dir, {});
    const paths = Array.from({ length: nLocks }, (_, i) => path.join(dir, 'src', `file-${i}.ts`));

    for (let i = 0; i < nProcs; i++) {
      const child = fork(self, ['--worker', `worker-${i}`, '--dir', dir], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
      children.push({ name: `worker-${i}`, child, next: inbox(child) });
    }
    await Promise.all(children.map((c) => c.next()));
    log(`${nProcs} processes, ${nTasks} tasks, ${nLocks} locks × ${rounds} rounds, database in ${dir}`);

    // Board race.
    const t0 = performance.now();
    for (const c of children) c.child.send({ type: 'claim', ids });
    const claimed = await Promise.all(children.map((c) => c.next()));
    const boardMs = performance.now() - t0;
    const winners = new Map();
    let duplicates = 0;
    claimed.forEach((r, i) => {
      for (const id of r.won) {
        if (winners.has(id)) duplicates++;
        winners.set(id, children[i].name);
      }
    });
    const rows = await board.list();
    const mismatched = rows.filter((t) => t.status !== 'in_progress' || t.claimed_by !== winners.get(t.id)).length;
    const lostTasks = ids.filter((id) => !winners.has(id)).length;
    const attempts = claimed.reduce((n, r) => n + r.won.length + r.lost, 0);
    const boardOk = duplicates === 0 && lostTasks === 0 && mismatched === 0 && winners.size === nTasks && attempts === nTasks * nProcs;
    const boardResult = {
      ok: boardOk,
      tasks: nTasks,
      processes: nProcs,
      attempts,
      seconds: boardMs / 1000,
      attempts_per_second: Math.round(attempts / (boardMs / 1000)),
      claims_per_second: Math.round(nTasks / (boardMs / 1000)),
      duplicates,
      lost: lostTasks,
      mismatched,
      wins_per_process: Object.fromEntries(claimed.map((r, i) => [children[i].name, r.won.length])),
      winners: args.json ? Object.fromEntries(winners) : undefined,
    };
    log(
      `board: ${attempts} claim attempts in ${boardResult.seconds.toFixed(2)} s = ${boardResult.attempts_per_second} attempts/s, ${boardResult.claims_per_second} successful claims/s`,
    );
    log(`board: wins per process ${JSON.stringify(boardResult.wins_per_process)}`);
    log(
      boardOk
        ? `board: OK, every one of the ${nTasks} tasks has exactly one winner (0 double claims, 0 lost tasks)`
        : `board: FAIL, ${duplicates} double claims, ${lostTasks} tasks without a winner, ${mismatched} tasks whose stored claimant differs`,
    );

    // Lock fight, round after round.
    let lockMs = 0;
    let lockAttempts = 0;
    let lockFailures = 0;
    for (let r = 0; r < rounds; r++) {
      const t1 = performance.now();
      for (const c of children) c.child.send({ type: 'lock', paths });
      const results = await Promise.all(children.map((c) => c.next()));
      lockMs += performance.now() - t1;
      const owner = new Map();
      let dup = 0;
      results.forEach((res, i) => {
        lockAttempts += res.won.length + res.lost;
        for (const p of res.won) {
          if (owner.has(p)) dup++;
          owner.set(p, children[i].name);
        }
      });
      const held = locks.locks();
      const wrong = held.filter((l) => owner.get(l.path) !== l.agent_id).length;
      if (dup > 0 || owner.size !== nLocks || held.length !== nLocks || wrong > 0) {
        lockFailures++;
        log(`locks: round ${r + 1} FAIL, ${dup} double locks, ${nLocks - owner.size} locks without a winner, ${wrong} stored owners differ`);
      }
      for (const [p, who] of owner) locks.unlock(p, who);
    }
    const lockResult = {
      ok: lockFailures === 0,
      locks: nLocks,
      rounds,
      attempts: lockAttempts,
      seconds: lockMs / 1000,
      attempts_per_second: Math.round(lockAttempts / (lockMs / 1000)),
      acquisitions_per_second: Math.round((nLocks * rounds) / (lockMs / 1000)),
      failed_rounds: lockFailures,
    };
    log(
      `locks: ${lockAttempts} lock attempts in ${lockResult.seconds.toFixed(2)} s = ${lockResult.attempts_per_second} attempts/s, ${lockResult.acquisitions_per_second} acquisitions/s`,
    );
    log(
      lockResult.ok
        ? `locks: OK, in all ${rounds} rounds every one of the ${nLocks} locks had exactly one winner`
        : `locks: FAIL in ${lockFailures} of ${rounds} rounds`,
    );
    await board.close();
    locks.close();
    if (args.json) process.stdout.write(`${JSON.stringify({ dir, board: boardResult, locks: lockResult })}\n`);
    process.exitCode = boardOk && lockResult.ok ? 0 : 1;
  } finally {
    for (const c of children) if (c.child.connected) c.child.send({ type: 'exit' });
    await Promise.all(children.map((c) => (c.child.exitCode !== null ? null : new Promise((r) => c.child.once('exit', r)))));
    if (!args.keep && !args.dir) fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (args.worker) await worker(args.worker, args.dir);
else await main();
