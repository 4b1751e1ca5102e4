// bench/soak: two echo agents, N messages each way (as from the other agent), random priorities
// 1-4, sent at a bounded rate. Prints messages per second, p50/p99 delivery latency and RSS over
// time; checks that every message was typed into the receiving PTY exactly once (the bytes the
// echo agent's terminal received are recorded) and that each inbox delivered by priority, then
// arrival. Exits 1 when a check fails.
// Usage: npm run build && npm run bench:soak -- [--messages 10000] [--rate 15] [--seed N] [--max-rss MiB] [--json]
//   --max-rss  fail when either agent's RSS (its process tree) ever went above this many MiB; the
//   peak is printed either way
//   --messages  per direction (default 10000)   --rate  messages per second per direction (default 15,
//   a little under what one echo agent delivers; a higher rate builds queues, which the order check reads)
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { percentile, startAgent, tempEnv, treeMemory } from './lib.mjs';

const args = process.argv.slice(2);
const flag = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i === -1 ? dflt : Number(args[i + 1]);
};
const N = flag('messages', 10_000);
const RATE = flag('rate', 15);
const SEED = flag('seed', Math.floor(Math.random() * 2 ** 31));
const MAX_RSS = flag('max-rss', Infinity);
const JSON_OUT = args.includes('--json');
const log = (line) => (JSON_OUT ? process.stderr.write(`${line}\n`) : console.log(line));

let seedState = SEED >>> 0;
const random = () => {
  seedState = (seedState + 0x6d2b79f5) >>> 0;
  let t = Math.imul(seedState ^ (seedState >>> 15), seedState | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

const PRELOAD = fileURLToPath(new URL('../test/security/support/record-pty-input.mjs', import.meta.url));
// The soak builds queues on purpose (the order check reads them): the per-sender backpressure
// limit (SYNAPSE_MAX_QUEUED_PER_SENDER, 100) would refuse them, so it is lifted here.
const { home, env, cleanup } = tempEnv({ ECHO_THINK_MS: '0', SYNAPSE_LONG_MESSAGE_THRESHOLD: '100000', SYNAPSE_MAX_QUEUED_PER_SENDER: String(N + 1) });
const recording = (name) => ({
  ...env,
  PTY_INPUT_LOG: path.join(home, `${name}.pty-input`),
  NODE_OPTIONS: `${env.NODE_OPTIONS ?? ''} --import=${PRELOAD}`.trim(),
});

const agents = { A: await startAgent(recording('A'), ['--name', 'soak-a']), B: await startAgent(recording('B'), ['--name', 'soak-b']) };
const idOf = (name) => `synapse-echo-${agents[name].port}`;
const rss = [];
const sampleRss = (sent) => rss.push({ sent, A: treeMemory(agents.A.child.pid).rssMiB, B: treeMemory(agents.B.child.pid).rssMiB });

/** Every message: who sent it to whom, its priority, its task on the receiver. */
const messages = [];
let failures = [];

async function send(from, to, i) {
  const priority = 1 + Math.floor(random() * 4);
  const tag = `soak-${from}-${i}`;
  const body = {
    message: { role: 'user', parts: [{ type: 'text', text: `${tag} p${priority}` }] },
    metadata: { sender: { sender_id: idOf(from), sender_name: `soak-${from.toLowerCase()}`, sender_endpoint: agents[from].endpoint }, response_mode: 'silent' },
  };
  const res = await fetch(`${agents[to].endpoint}/tasks/send-priority?priority=${priority}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status !== 202) throw new Error(`${tag}: ${res.status} ${await res.text()}`);
  const { task } = await res.json();
  messages.push({ tag, from, to, priority, id: task.id });
}

try {
  sampleRss(0);
  const t0 = performance.now();
  const pending = new Set();
  for (let i = 0; i < N; i++) {
    // Bounded rate: message i of each direction goes out at i / RATE seconds.
    const due = t0 + (i * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    for (const [from, to] of [
      ['A', 'B'],
      ['B', 'A'],
    ]) {
      const p = send(from, to, i).finally(() => pending.delete(p));
      pending.add(p);
    }
    if ((i + 1) % 1000 === 0 || i + 1 === N) {
      sampleRss(i + 1);
      log(`sent ${i + 1}/${N} each way; RSS A ${rss.at(-1).A.toFixed(1)} MiB, B ${rss.at(-1).B.toFixed(1)} MiB`);
    }
  }
  await Promise.all(pending);
  // Wait until both inboxes are empty and nothing is in flight.
  for (;;) {
    const s = await Promise.all(['A', 'B'].map(async (n) => (await fetch(`${agents[n].endpoint}/status`)).json()));
    if (s.every((x) => x.queued === 0 && x.current_task === null)) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const elapsed = (performance.now() - t0) / 1000;
  sampleRss('drained');

  // Every task, read back (a few at a time).
  const tasks = new Map();
  for (let i = 0; i < messages.length; i += 32) {
    await Promise.all(messages.slice(i, i + 32).map(async (m) => tasks.set(m.id, await (await fetch(`${agents[m.to].endpoint}/tasks/${m.id}`)).json())));
  }
  const latency = [];
  for (const m of messages) {
    const t = tasks.get(m.id);
    if (t.status !== 'completed') failures.push(`${m.tag}: ${t.status}`);
    else latency.push(Date.parse(t.receipt.delivered_at) - Date.parse(t.created_at));
  }

  // Exactly once: each tag in exactly one paste into its receiver's PTY.
  for (const to of ['A', 'B']) {
    const bytes = fs.readFileSync(path.join(home, `${to}.pty-input`), 'latin1');
    const counts = new Map();
    for (const match of bytes.matchAll(/\x1b\[200~[^\x1b]*?(soak-[AB]-\d+) p\d[^\x1b]*\x1b\[201~/g)) counts.set(match[1], (counts.get(match[1]) ?? 0) + 1);
    for (const m of messages.filter((x) => x.to === to)) {
      const c = counts.get(m.tag) ?? 0;
      if (c !== 1) failures.push(`${m.tag} typed into ${to} ${c} times`);
    }
  }

  // Priority order per inbox: a message waiting when another was picked, with a higher priority
  // (or the same priority and an earlier arrival), went first.
  let orderChecks = 0;
  for (const to of ['A', 'B']) {
    const inbox = messages
      .filter((m) => m.to === to)
      .map((m) => {
        const t = tasks.get(m.id);
        return { ...m, created: Date.parse(t.created_at), picked: Date.parse(t.metadata.pty_written_at), seq: messages.indexOf(m) };
      })
      .sort((x, y) => x.picked - y.picked);
    for (let i = 0; i < inbox.length; i++) {
      const x = inbox[i];
      for (let j = i + 1; j < inbox.length; j++) {
        const y = inbox[j];
        if (y.picked === x.picked || y.created >= x.picked) continue; // y was not surely waiting when x was picked
        orderChecks++;
        if (y.priority > x.priority) failures.push(`${to}: ${x.tag} (p${x.priority}) went before ${y.tag} (p${y.priority}), which was waiting`);
        else if (y.priority === x.priority && y.created < x.created) failures.push(`${to}: ${x.tag} overtook ${y.tag} of the same priority`);
      }
    }
  }

  const peak = { A: Math.max(...rss.map((r) => r.A)), B: Math.max(...rss.map((r) => r.B)) };
  for (const n of ['A', 'B']) if (peak[n] > MAX_RSS) failures.push(`${n}: RSS peaked at ${peak[n].toFixed(1)} MiB, over the ceiling of ${MAX_RSS} MiB`);
  const first = rss[1] ?? rss[0];
  const last = rss.at(-1);
  const growth = { A: (last.A - first.A) / first.A, B: (last.B - first.B) / first.B };
  const result = {
    seed: SEED,
    messagesEachWay: N,
    rate: RATE,
    seconds: Number(elapsed.toFixed(1)),
    messagesPerSecond: Number(((2 * N) / elapsed).toFixed(1)),
    latencyMs: { p50: percentile(latency, 50), p99: percentile(latency, 99), max: Math.max(...latency) },
    rssMiB: rss.map((r) => ({ sent: r.sent, A: Number(r.A.toFixed(1)), B: Number(r.B.toFixed(1)) })),
    rssPeakMiB: { A: Number(peak.A.toFixed(1)), B: Number(peak.B.toFixed(1)) },
    rssCeilingMiB: Number.isFinite(MAX_RSS) ? MAX_RSS : null,
    rssGrowthFirstToLastThousand: { A: Number(growth.A.toFixed(3)), B: Number(growth.B.toFixed(3)) },
    orderChecks,
    failures: failures.slice(0, 50),
    failureCount: failures.length,
  };
  if (JSON_OUT) console.log(JSON.stringify(result));
  else {
    console.log(`bench/soak: 2 echo agents, ${N} messages each way at ${RATE}/s per direction, priorities 1-4 (seed ${SEED})`);
    console.log(
      `  ${result.messagesPerSecond} messages/s overall; delivery latency p50 ${result.latencyMs.p50} ms, p99 ${result.latencyMs.p99} ms, max ${result.latencyMs.max} ms`,
    );
    console.log(`  RSS over time (MiB): ${result.rssMiB.map((r) => `${r.sent}: A ${r.A} B ${r.B}`).join(' | ')}`);
    console.log(`  RSS peak: A ${result.rssPeakMiB.A} MiB, B ${result.rssPeakMiB.B} MiB${Number.isFinite(MAX_RSS) ? ` (ceiling ${MAX_RSS} MiB)` : ''}`);
    console.log(`  RSS growth from the first to the last thousand: A ${(growth.A * 100).toFixed(1)} %, B ${(growth.B * 100).toFixed(1)} %`);
    console.log(
      `  exactly once: ${failures.some((f) => f.includes('typed into')) ? 'NO' : 'yes'}; priority order (${orderChecks} pairs checked): ${failures.some((f) => f.includes('went before') || f.includes('overtook')) ? 'NO' : 'yes'}`,
    );
    for (const f of failures.slice(0, 20)) console.log(`  FAIL ${f}`);
  }
  if (failures.length > 0) process.exitCode = 1;
} finally {
  await Promise.all([agents.A.stop(), agents.B.stop()]);
  cleanup();
}
