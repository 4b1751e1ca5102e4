// bench/footprint: what one wrapped agent costs a person who runs several all day, in one run.
//   - idle RSS and PSS of the agent process alone (its CLI child excluded), 10 s after it takes
//     messages, for `synapse start echo`; then its RSS after the first A2A request of one kind
//     (what a lazily loaded stack adds once used);
//   - the same for an agent started as a team's are, from the port range (no --port) beside two
//     others, and the CLI's first output of a foreground `synapse echo` beside them (the port claim
//     reads the registry: what sorting it costs shows here, not in the single agent);
//   - launch -> registry entry, -> agent card, -> READY, -> taking messages, and when
//     `synapse start` returns, for `synapse start echo` and for the foreground mode in a PTY;
//   - the wrapped CLI's first output (its `echo> ` prompt) in a PTY, with and without Synapse
//     (a foreground launch of its own: nothing polls its milestones meanwhile); the overhead as
//     the difference of the two medians, and as the median of each launch's difference from the
//     CLI-alone launch right after it;
//     when the environment sets NODE_EXTRA_CA_CERTS, also with it unset for both (every node
//     process parses those certificates before any script runs: Synapse's start and the CLI's);
//   - the first A2A request right after start (JSON-RPC SendMessage, gRPC SendMessage, the A2A
//     card), each on a fresh agent, next to the second one: the difference is the lazy load;
//   - RSS after 1,000 messages and after 100 SSE subscribe/unsubscribe cycles, with growth; then
//     after 1,000 more messages, also over the warmed agent (one-time warm-up vs per-message);
//   - the earlier figures on the same agent: accept, delivery, round trip, `synapse send --silent`.
// Every `synapse` is run as a shell runs it: the bin itself, through its shebang.
// Each start-up figure is the median of --runs launches (alternating start kinds). The machine's
// load average is printed at the start and the end: compare figures only from quiet runs.
// Usage: npm run build && node bench/footprint.mjs [--runs 9] [--messages 1000] [--sse 100] [--idle-s 10] [--settle-s 30]
import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { GrpcTransportFactory } from '@a2a-js/sdk/client/grpc';
import { BIN, ROOT, fmt, freePort, percentile, sendMessageRequest, tempEnv } from './lib.mjs';

const pty = createRequire(import.meta.url)('node-pty');

function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}
const RUNS = arg('runs', 9);
const MESSAGES = arg('messages', 1000);
const SSE_CYCLES = arg('sse', 100);
const IDLE_MS = arg('idle-s', 10) * 1000;
const SETTLE_MS = Math.max(IDLE_MS, arg('settle-s', 30) * 1000);
const ECHO_JS = path.join(ROOT, 'dist', 'demo', 'echo-agent.js');
// The echo profile's own command line (src/profiles/echo.ts).
const ECHO_ARGV = ['--max-old-space-size=32', '--max-semi-space-size=1', ECHO_JS];
// The Python Synapse 0.35 figures measured side by side in issue 13 (same 2-core machine, one run).
const ORIGINAL = { idleRssMiB: 65, cardMs: 2340 };

const { env, cleanup } = tempEnv({ ECHO_THINK_MS: '0' });
env.SYNAPSE_REPLY_TARGET_DIR = path.join(env.HOME, '.a2a', 'reply');
env.SYNAPSE_MESSAGE_DIR = path.join(env.HOME, 'messages');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const loadAvg = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
const median = (xs) => percentile(xs, 50);
const MiB = (kb) => kb / 1024;

function memoryOf(pid) {
  const rollup = fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  const kb = (key) => Number(new RegExp(`^${key}:\\s+(\\d+)`, 'm').exec(rollup)?.[1] ?? 0);
  return { rss: MiB(kb('Rss')), pss: MiB(kb('Pss')) };
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A port whose +1000 (the agent's gRPC port) is free too. */
async function agentPort() {
  for (;;) {
    const p = await freePort();
    if (p + 1000 > 65535) continue;
    const probe = spawnSync(process.execPath, [
      '-e',
      `require('net').createServer().once('error',()=>process.exit(1)).listen(${p + 1000},'127.0.0.1',function(){this.close()})`,
    ]);
    if (probe.status === 0) return p;
  }
}

function canBind(port) {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen({ port, host: '127.0.0.1', exclusive: true }, () => s.close(() => resolve(true)));
  });
}

/** `size` consecutive free ports, each with its gRPC port (+1000) free too: a team's port range. */
async function agentRange(size) {
  for (;;) {
    const first = 20000 + Math.floor(Math.random() * 40000);
    let ok = true;
    for (let p = first; p < first + size && ok; p++) ok = (await canBind(p)) && (await canBind(p + 1000));
    if (ok) return { first, last: first + size - 1 };
  }
}

/** `synapse start echo` without --port, from the range `rangeEnv` sets: resolves once it takes messages. */
async function startInRange(rangeEnv) {
  const r = spawnSync(BIN, ['start', 'echo', '--json'], { env: rangeEnv, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`synapse start exited ${r.status}: ${r.stderr}`);
  const { pid, port } = JSON.parse(r.stdout);
  for (;;) {
    if ((await getJson(`http://127.0.0.1:${port}/status`).catch(() => ({}))).ready_for_messages === true) break;
    await sleep(20);
  }
  return { pid, port, readyAt: performance.now(), stop: () => stopPid(pid) };
}

/**
 * A team's case: two agents from the range, a foreground `synapse echo` beside them (its CLI's
 * first output), then a third agent from the range, idle for IDLE_MS (its RSS).
 */
async function teamRun() {
  const range = await agentRange(4);
  const rangeEnv = { ...env, SYNAPSE_PORT_RANGE_ECHO: `${range.first}-${range.last}` };
  const agents = [];
  try {
    for (let i = 0; i < 2; i++) agents.push(await startInRange(rangeEnv));
    const t0 = performance.now();
    const run = inPty(BIN, ['echo', '--no-setup'], t0, rangeEnv);
    const prompt = await Promise.race([run.prompt, run.exited.then(() => NaN), sleep(5000).then(() => NaN)]);
    run.p.kill('SIGTERM');
    await Promise.race([run.exited, sleep(8000)]);
    const third = await startInRange(rangeEnv);
    agents.push(third);
    await sleep(Math.max(0, third.readyAt + IDLE_MS - performance.now()));
    return { prompt, rss: memoryOf(third.pid).rss };
  } finally {
    for (const a of agents) await a.stop();
  }
}

async function getJson(url) {
  const res = await fetch(url);
  if (res.status !== 200) throw new Error(`${url}: ${res.status}`);
  return res.json();
}

const stateOf = (task) => (typeof task.status === 'string' ? task.status : task.status.state);

/**
 * Polls one milestone each from `t0` on, all at once: the registry file, the agent card, the
 * status READY and `ready_for_messages`. Resolves with the times in ms since t0.
 */
async function milestones(t0, port, isDead) {
  const file = path.join(env.SYNAPSE_REGISTRY_DIR, `synapse-echo-${port}.json`);
  const endpoint = `http://127.0.0.1:${port}`;
  const poll = async (check) => {
    for (;;) {
      if (isDead()) throw new Error('the agent exited during start-up');
      if (await check().catch(() => false)) return performance.now() - t0;
      await sleep(2);
    }
  };
  const [registry, card, ready, taking] = await Promise.all([
    poll(async () => fs.existsSync(file)),
    poll(async () => (await fetch(`${endpoint}/.well-known/agent.json`)).status === 200),
    poll(async () => ['READY', 'PROCESSING', 'DONE'].includes((await getJson(`${endpoint}/status`)).status)),
    poll(async () => (await getJson(`${endpoint}/status`)).ready_for_messages === true),
  ]);
  return { registry, card, ready, taking, endpoint };
}

/** `synapse start echo`: a detached agent; the start command is timed until it returns. */
async function startBackground(port, extra = []) {
  const t0 = performance.now();
  const cmd = spawn(BIN, ['start', 'echo', '--port', String(port), '--json', ...extra], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  cmd.stdout.on('data', (d) => (out += d));
  cmd.stderr.on('data', (d) => (out += d));
  const returned = new Promise((resolve) => cmd.once('exit', (code) => resolve({ code, ms: performance.now() - t0 })));
  const m = await milestones(t0, port, () => false);
  const r = await returned;
  if (r.code !== 0) throw new Error(`synapse start exited ${r.code}: ${out}`);
  const pid = JSON.parse(out).pid;
  return { ...m, returned: r.ms, takingAt: t0 + m.taking, pid, stop: () => stopPid(pid) };
}

async function stopPid(pid) {
  try {
    process.kill(-pid, 'SIGTERM');
  } catch {
    return;
  }
  const deadline = Date.now() + 8000;
  while (alive(pid) && Date.now() < deadline) await sleep(20);
  if (alive(pid)) process.kill(-pid, 'SIGKILL');
}

/** Runs argv in a PTY; resolves the time of the first output containing `echo> `. */
function inPty(file, argv, t0, ptyEnv = env) {
  const p = pty.spawn(file, argv, { name: 'xterm-256color', cols: 120, rows: 40, cwd: ROOT, env: ptyEnv });
  let seen = '';
  const prompt = new Promise((resolve) =>
    p.onData((d) => {
      if (seen.includes('echo> ')) return;
      seen += d;
      if (seen.includes('echo> ')) resolve(performance.now() - t0);
    }),
  );
  const exited = new Promise((resolve) => p.onExit(resolve));
  let done = false;
  void exited.then(() => (done = true));
  return { p, prompt, exited, isDead: () => done };
}

/** `synapse echo` in a PTY (the foreground mode): milestones and the CLI's first output. */
async function startForeground(port, ptyEnv = env) {
  const t0 = performance.now();
  const run = inPty(BIN, ['echo', '--port', String(port), '--no-setup'], t0, ptyEnv);
  const m = await milestones(t0, port, run.isDead);
  const prompt = await Promise.race([run.prompt, sleep(5000).then(() => NaN)]);
  run.p.kill('SIGTERM');
  await Promise.race([run.exited, sleep(8000)]);
  return { ...m, prompt };
}

/**
 * `synapse echo` in a PTY, nothing else: when the CLI's prompt appears. The launch above polls four
 * milestones every 2 ms meanwhile, which takes CPU from the agent and the CLI on a 2-core machine
 * (the CLI alone runs without them): this launch is the one compared with the CLI alone.
 */
async function foregroundPrompt(port, ptyEnv = env) {
  const t0 = performance.now();
  const run = inPty(BIN, ['echo', '--port', String(port), '--no-setup'], t0, ptyEnv);
  const prompt = await Promise.race([run.prompt, run.exited.then(() => NaN), sleep(5000).then(() => NaN)]);
  run.p.kill('SIGTERM');
  await Promise.race([run.exited, sleep(8000)]);
  return prompt;
}

/** The echo CLI alone in a PTY: when its prompt appears. */
async function bareCli(ptyEnv = env) {
  const t0 = performance.now();
  const run = inPty(process.execPath, ECHO_ARGV, t0, ptyEnv);
  const ms = await run.prompt;
  run.p.kill('SIGKILL');
  await run.exited;
  return ms;
}

const rpcBody = (text) =>
  JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }] } } });

async function jsonRpcSend(endpoint, text) {
  const t0 = performance.now();
  const res = await fetch(`${endpoint}/a2a/jsonrpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: rpcBody(text),
  });
  const body = await res.json();
  const ms = performance.now() - t0;
  if (body.result?.task?.status?.state !== 'TASK_STATE_COMPLETED') throw new Error(`JSON-RPC SendMessage: ${JSON.stringify(body)}`);
  return ms;
}

async function grpcSend(transport, text) {
  const t0 = performance.now();
  const task = await transport.sendMessage(sendMessageRequest(text), { serviceParameters: { 'A2A-Version': '1.0' } });
  const ms = performance.now() - t0;
  if (!('status' in task) || task.status?.state !== 3) throw new Error(`gRPC SendMessage: ${JSON.stringify(task)}`);
  return ms;
}

async function cardFetch(endpoint) {
  const t0 = performance.now();
  const card = await getJson(`${endpoint}/.well-known/agent-card.json`);
  if (!card.supportedInterfaces) throw new Error(`A2A card: ${JSON.stringify(card)}`);
  return performance.now() - t0;
}

/** The first and the second request of one kind on a fresh, idle agent. */
async function firstRequest(kind, endpoint, port) {
  if (kind === 'jsonrpc') return [await jsonRpcSend(endpoint, 'first'), await jsonRpcSend(endpoint, 'second')];
  if (kind === 'card') return [await cardFetch(endpoint), await cardFetch(endpoint)];
  const url = `127.0.0.1:${port + 1000}`;
  const card = { supportedInterfaces: [{ url, protocolBinding: 'GRPC', protocolVersion: '1.0', tenant: '' }] };
  const transport = await new GrpcTransportFactory().create(url, card);
  return [await grpcSend(transport, 'first'), await grpcSend(transport, 'second')];
}

async function sendAndWait(endpoint, text) {
  const t0 = performance.now();
  const res = await fetch(`${endpoint}/tasks/send`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ message: { role: 'user', parts: [{ type: 'text', text }] } }),
  });
  const accepted = performance.now() - t0;
  const sent = await res.json();
  const id = (sent.task ?? sent).id;
  for (;;) {
    const got = await getJson(`${endpoint}/tasks/${id}`);
    const t = got.task ?? got;
    if (['completed', 'failed', 'canceled'].includes(stateOf(t))) {
      if (stateOf(t) !== 'completed') throw new Error(`task ${id} ended ${stateOf(t)}`);
      const created = Date.parse(t.created_at);
      const delivered = t.receipt?.delivered_at ? Date.parse(t.receipt.delivered_at) - created : NaN;
      return { accepted, roundTrip: performance.now() - t0, delivered };
    }
    await new Promise((r) => setImmediate(r));
  }
}

/** One cycle: open the agent's event feed and a running task's stream, read their first bytes, close. */
async function sseCycle(endpoint, taskId) {
  for (const url of [`${endpoint}/events`, `${endpoint}/tasks/${taskId}/subscribe`]) {
    const ac = new AbortController();
    const res = await fetch(url, { signal: ac.signal });
    const reader = res.body.getReader();
    await reader.read();
    ac.abort();
    await reader.cancel().catch(() => undefined);
  }
}

function timeCli(file, args) {
  const t0 = performance.now();
  const r = spawnSync(file, args, { env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return performance.now() - t0;
}

/**
 * The overhead launch by launch: each Synapse launch less the CLI-alone launch made right after it,
 * then the median and range of those differences. Start times drift by 5-10 ms between minutes on
 * this machine; a difference of neighbours is not moved by that drift, a difference of medians is.
 */
function pairedOverhead(through, alone) {
  const d = through.map((t, i) => t - alone[i]).filter((x) => Number.isFinite(x));
  return `p50 ${fmt(median(d))} (min ${fmt(Math.min(...d))}, max ${fmt(Math.max(...d))})`;
}

const row = (label, value, note = '') => console.log(`  ${label.padEnd(44)} ${value}${note ? `  ${note}` : ''}`);
const ms3 = (xs) => `p50 ${fmt(median(xs)).padStart(9)}  (min ${fmt(Math.min(...xs))}, max ${fmt(Math.max(...xs))})`;

const loadBefore = loadAvg();
const bg = { registry: [], card: [], ready: [], taking: [], returned: [] };
const fg = { registry: [], card: [], ready: [], taking: [], prompt: [] };
const bare = [];
const fgPrompt = [];
// The same first-output figures without NODE_EXTRA_CA_CERTS, when the environment sets it.
const noCaEnv = env.NODE_EXTRA_CA_CERTS ? Object.fromEntries(Object.entries(env).filter(([k]) => k !== 'NODE_EXTRA_CA_CERTS')) : null;
const noCa = { fg: [], bare: [] };
const idle = [];
const team = [];
const after = { jsonrpc: [], grpc: [], card: [] };
const first = { jsonrpc: [], grpc: [], card: [] };
const KINDS = ['jsonrpc', 'grpc', 'card'];
let heavy;
try {
  // Start-up, idle memory and the first A2A request: one fresh background agent per run.
  for (let i = 0; i < RUNS; i++) {
    const port = await agentPort();
    const a = await startBackground(port);
    try {
      for (const k of Object.keys(bg)) bg[k].push(a[k]);
      await sleep(Math.max(0, a.takingAt + IDLE_MS - performance.now()));
      idle.push(memoryOf(a.pid));
      const kind = KINDS[i % KINDS.length];
      const [one, two] = await firstRequest(kind, a.endpoint, port);
      first[kind].push({ one, two });
      await sleep(1000);
      after[kind].push(memoryOf(a.pid).rss);
    } finally {
      await a.stop();
    }
    // The foreground mode in a PTY, and the CLI alone, interleaved with the background runs.
    const f = await startForeground(await agentPort());
    for (const k of Object.keys(fg)) fg[k].push(f[k]);
    fgPrompt.push(await foregroundPrompt(await agentPort()));
    bare.push(await bareCli());
    if (noCaEnv) {
      noCa.fg.push(await foregroundPrompt(await agentPort(), noCaEnv));
      noCa.bare.push(await bareCli(noCaEnv));
    }
  }

  // A team's case, a few times (each takes IDLE_MS).
  for (let i = 0; i < Math.min(RUNS, 3); i++) team.push(await teamRun());

  // Growth: one agent takes MESSAGES messages, then SSE_CYCLES stream subscriptions.
  const port = await agentPort();
  heavy = await startBackground(port, ['--name', 'fp']);
  await sleep(Math.max(0, heavy.takingAt + IDLE_MS - performance.now()));
  const heavyIdle = memoryOf(heavy.pid).rss;
  const accepted = [];
  const delivered = [];
  const roundTrip = [];
  for (let i = 0; i < MESSAGES; i++) {
    const r = await sendAndWait(heavy.endpoint, `footprint message ${i}`);
    accepted.push(r.accepted);
    roundTrip.push(r.roundTrip);
    if (!Number.isNaN(r.delivered)) delivered.push(r.delivered);
  }
  await sleep(1000);
  const rightAfterMessages = memoryOf(heavy.pid).rss;
  await sleep(IDLE_MS - 1000);
  const afterMessages = memoryOf(heavy.pid).rss;
  // V8 keeps the heap it grew to during the burst until its memory reducer has run (measured:
  // between 10 and 20 s after the burst); what is left then is what the agent holds.
  await sleep(SETTLE_MS - IDLE_MS);
  const settledMessages = memoryOf(heavy.pid).rss;
  const long = await (
    await fetch(`${heavy.endpoint}/tasks/send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: { role: 'user', parts: [{ type: 'text', text: 'stay busy [[wait: 300]]' }] } }),
    })
  ).json();
  const longId = (long.task ?? long).id;
  for (let i = 0; i < SSE_CYCLES; i++) await sseCycle(heavy.endpoint, longId);
  await fetch(`${heavy.endpoint}/tasks/${longId}/cancel`, { method: 'POST' });
  await sleep(SETTLE_MS);
  const afterSse = memoryOf(heavy.pid).rss;
  // The same number of messages again on the now warmed agent: what grows per message, apart
  // from what the first burst brought once (the scrollback filling to its bound, hot code). This
  // is RSS without a forced GC: heap V8 grew to in the burst and has not given back counts too
  // (guides/agent-runtime.md, "Memory", has what a full GC leaves).
  for (let i = 0; i < MESSAGES; i++) await sendAndWait(heavy.endpoint, `footprint message ${MESSAGES + i}`);
  await sleep(SETTLE_MS);
  const afterSecond = memoryOf(heavy.pid).rss;
  const floor = [];
  const silent = [];
  for (let i = 0; i < 10; i++) {
    floor.push(timeCli(process.execPath, ['-e', '0']));
    silent.push(timeCli(BIN, ['send', 'fp', `silent ${i}`, '--silent']));
  }

  const rss = idle.map((m) => m.rss);
  const pss = idle.map((m) => m.pss);
  console.log(`bench/footprint: echo agent (ECHO_THINK_MS=0), ${RUNS} launches of each kind, node ${process.version}, ${os.cpus().length} CPUs`);
  console.log(`  load average before: ${loadBefore}   after: ${loadAvg()}`);
  console.log(`idle agent process (CLI child excluded), ${IDLE_MS / 1000} s after it takes messages, \`synapse start echo\`:`);
  row(
    'RSS',
    `p50 ${median(rss).toFixed(1)} MiB  (min ${Math.min(...rss).toFixed(1)}, max ${Math.max(...rss).toFixed(1)})`,
    `original ${ORIGINAL.idleRssMiB} MiB, goal <= ${(ORIGINAL.idleRssMiB * 0.8).toFixed(0)} MiB`,
  );
  row('PSS', `p50 ${median(pss).toFixed(1)} MiB  (min ${Math.min(...pss).toFixed(1)}, max ${Math.max(...pss).toFixed(1)})`);
  row(
    'RSS, started beside two agents (port range)',
    `p50 ${median(team.map((x) => x.rss)).toFixed(1)} MiB  (${team.length} agents; the claim sorts the registry)`,
  );
  for (const k of KINDS)
    if (after[k].length) row(`RSS 1 s after the first ${k} request`, `p50 ${median(after[k]).toFixed(1)} MiB  (${after[k].length} agents)`);
  console.log('start-up, launch -> milestone (`synapse start echo`, detached):');
  row('-> registry entry', ms3(bg.registry));
  row('-> agent card (/.well-known/agent.json)', ms3(bg.card), `original ${ORIGINAL.cardMs} ms, goal <= ${ORIGINAL.cardMs * 0.2} ms`);
  row('-> READY', ms3(bg.ready));
  row('-> taking messages', ms3(bg.taking), '(after the start-up instruction turn)');
  row('`synapse start` returned', ms3(bg.returned));
  console.log('start-up, launch -> milestone (`synapse echo`, foreground in a PTY):');
  row('-> registry entry', ms3(fg.registry));
  row('-> agent card', ms3(fg.card));
  row('-> READY', ms3(fg.ready));
  row('-> taking messages', ms3(fg.taking));
  console.log("the wrapped CLI's first output (its prompt) in a PTY:");
  row('echo CLI alone', ms3(bare));
  row(
    'through `synapse echo`',
    ms3(fgPrompt),
    `overhead p50 ${fmt(median(fgPrompt) - median(bare))} (goal <= 50 ms); launch by launch ${pairedOverhead(fgPrompt, bare)}`,
  );
  row('… its milestones polled every 2 ms meanwhile', ms3(fg.prompt), `overhead p50 ${fmt(median(fg.prompt) - median(bare))}`);
  row('… beside two agents (port from the range)', ms3(team.map((x) => x.prompt)), `overhead p50 ${fmt(median(team.map((x) => x.prompt)) - median(bare))}`);
  if (noCaEnv) {
    row('echo CLI alone, NODE_EXTRA_CA_CERTS unset', ms3(noCa.bare));
    row(
      'through `synapse echo`, unset',
      ms3(noCa.fg),
      `overhead p50 ${fmt(median(noCa.fg) - median(noCa.bare))}; launch by launch ${pairedOverhead(noCa.fg, noCa.bare)}`,
    );
  }
  console.log('the first A2A request on a fresh idle agent, then the second (the difference is any lazy load):');
  const label = { jsonrpc: 'JSON-RPC SendMessage (blocking)', grpc: 'gRPC SendMessage (blocking)', card: 'A2A card (/.well-known/agent-card.json)' };
  for (const k of KINDS) {
    if (!first[k].length) continue;
    const ones = first[k].map((x) => x.one);
    const twos = first[k].map((x) => x.two);
    row(label[k], `first p50 ${fmt(median(ones))}  second p50 ${fmt(median(twos))}  (${ones.length} agents)`);
  }
  console.log(`growth, one agent: ${MESSAGES} messages, then ${SSE_CYCLES} SSE subscribe/unsubscribe cycles (/events + /tasks/{id}/subscribe):`);
  row('RSS idle', `${heavyIdle.toFixed(1)} MiB`);
  row(
    `RSS 1 s after ${MESSAGES} messages`,
    `${rightAfterMessages.toFixed(1)} MiB`,
    `growth ${(((rightAfterMessages - heavyIdle) / heavyIdle) * 100).toFixed(1)} %`,
  );
  row(
    `RSS ${IDLE_MS / 1000} s after ${MESSAGES} messages`,
    `${afterMessages.toFixed(1)} MiB`,
    `growth ${(((afterMessages - heavyIdle) / heavyIdle) * 100).toFixed(1)} %`,
  );
  row(
    `RSS ${SETTLE_MS / 1000} s after ${MESSAGES} messages`,
    `${settledMessages.toFixed(1)} MiB`,
    `growth ${(((settledMessages - heavyIdle) / heavyIdle) * 100).toFixed(1)} % (goal < 10 %)`,
  );
  row(
    `RSS ${SETTLE_MS / 1000} s after ${SSE_CYCLES} SSE cycles`,
    `${afterSse.toFixed(1)} MiB`,
    `growth ${(((afterSse - heavyIdle) / heavyIdle) * 100).toFixed(1)} % over idle, ${(((afterSse - settledMessages) / settledMessages) * 100).toFixed(1)} % over before the cycles (goal < 10 %)`,
  );
  row(
    `RSS ${SETTLE_MS / 1000} s after ${MESSAGES} more messages`,
    `${afterSecond.toFixed(1)} MiB`,
    `growth ${(((afterSecond - heavyIdle) / heavyIdle) * 100).toFixed(1)} % over idle, ${(((afterSecond - settledMessages) / settledMessages) * 100).toFixed(1)} % over the warmed agent (${SETTLE_MS / 1000} s after the first ${MESSAGES})`,
  );
  console.log('earlier figures, same agent:');
  row('POST /tasks/send -> accepted', ms3(accepted));
  if (delivered.length) row('accepted -> delivered (receipt)', ms3(delivered), '(ms clock)');
  row('/tasks/send -> completed (round trip)', ms3(roundTrip));
  row('node -e 0 (floor)', ms3(floor));
  row('synapse send --silent', ms3(silent), `floor + ${fmt(median(silent) - median(floor))}`);
} finally {
  await heavy?.stop();
  cleanup();
}
// gRPC channels of the bench's own clients would keep it alive.
process.exit(0);
