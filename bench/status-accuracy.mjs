// bench/status-accuracy: how well the profiles read the real CLIs' screens.
//
// 1. Replays every recorded screen under test/fixtures/screens/<cli>/<version>/ through that CLI's
//    profile: each <status>/<case>.txt is classified as the runtime would (classifyScreen on the
//    viewport rows), and each <case>.ansi byte stream is written into a fresh runtime Screen of the
//    recorded size and classified from what it renders. Prints per-CLI accuracy, a confusion
//    matrix (recorded status × profile reading) and every miss; plus reply extraction on turns/*.
// 2. Live (unless --no-live): per CLI, one `synapse <cli> --headless` against the offline mock model
//    server (pinned CLIs from test/e2e/clis), N instant and N streamed text turns, and the lag from the mock's last
//    streamed byte to the agent's status leaving PROCESSING (DONE/READY, from its event log) and
//    to the task's completion.
//
// Usage: npm run build && node bench/status-accuracy.mjs [--no-live] [--turns N] [claude|codex|gemini|opencode ...]
// SYNAPSE_DIST=<dir> reads another build's profiles; SYNAPSE_BIN=<bin/synapse.js> runs another build live.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { freePort, percentile, ROOT } from './lib.mjs';

const args = process.argv.slice(2);
const live = !args.includes('--no-live');
const turnsArg = args.indexOf('--turns');
const TURNS = turnsArg >= 0 ? Number(args[turnsArg + 1]) : 3;
const only = args.filter((a, i) => !a.startsWith('--') && args[i - 1] !== '--turns');
const DIST = path.resolve(process.env.SYNAPSE_DIST ?? path.join(ROOT, 'dist'));
const BIN = path.resolve(process.env.SYNAPSE_BIN ?? path.join(ROOT, 'bin', 'synapse.js'));
const FIXTURES = path.join(ROOT, 'test', 'fixtures', 'screens');

const load = (rel) => import(pathToFileURL(path.join(DIST, rel)).href);
const { findProfile } = await load('profiles/index.js');
const { classifyScreen, viewOf } = await load('profiles/screen-rules.js');
const { Screen } = await load('runtime/screen.js');

const STATUSES = ['starting', 'ready', 'processing', 'waiting'];
const READINGS = ['READY', 'PROCESSING', 'WAITING', 'none'];
const EXPECTED = { ready: 'READY', processing: 'PROCESSING', waiting: 'WAITING' };
/** A start-up screen is read right when it is not READY (no reading, or anything but idle). */
const correct = (status, got) => (status === 'starting' ? got !== 'READY' : got === EXPECTED[status]);

const readLines = (file) => fs.readFileSync(file, 'utf8').replace(/\n$/, '').split('\n');
const dirs = (p) =>
  fs.existsSync(p)
    ? fs
        .readdirSync(p)
        .filter((d) => fs.statSync(path.join(p, d)).isDirectory())
        .sort()
    : [];

/** Size of a recorded screen: the manifest's, else what the case name says, else 120x40. */
function sizeOf(manifest, status, name) {
  const m = manifest?.screens?.find((s) => s.status === status && s.case === name);
  if (m?.cols && m?.rows) return { cols: m.cols, rows: m.rows, resized: /resiz/.test(name) };
  const named = /(\d{2,3})x(\d{2,3})/.exec(name);
  return named ? { cols: Number(named[1]), rows: Number(named[2]), resized: /resiz/.test(name) } : { cols: 120, rows: 40, resized: /resiz/.test(name) };
}

async function replayAnsi(file, size) {
  const screen = new Screen(size.cols, size.rows);
  screen.write(fs.readFileSync(file, 'utf8'));
  await screen.flushed();
  const lines = screen.viewport();
  screen.dispose();
  return lines;
}

function pad(s, n) {
  s = String(s);
  return s.length >= n ? s : s + ' '.repeat(n - s.length);
}

function printMatrix(matrix) {
  const w = 12;
  console.log(`    ${pad('recorded \\ read', 18)}${READINGS.map((r) => pad(r, w)).join('')}`);
  for (const status of STATUSES) {
    const row = matrix[status];
    if (!row) continue;
    console.log(`    ${pad(status, 18)}${READINGS.map((r) => pad(row[r] ?? 0, w)).join('')}`);
  }
}

const summary = [];
console.log(`bench/status-accuracy: recorded screens replayed through the profiles (${path.relative(ROOT, DIST) || DIST})\n`);
for (const cli of dirs(FIXTURES)) {
  if (only.length && !only.includes(cli)) continue;
  const profile = findProfile(cli);
  if (!profile) continue;
  for (const version of dirs(path.join(FIXTURES, cli))) {
    const base = path.join(FIXTURES, cli, version);
    const manifestFile = path.join(base, 'manifest.json');
    const manifest = fs.existsSync(manifestFile) ? JSON.parse(fs.readFileSync(manifestFile, 'utf8')) : null;
    const matrix = {};
    const misses = [];
    let total = 0;
    let right = 0;
    let ansiTotal = 0;
    let ansiRight = 0;
    let ansiSame = 0;
    for (const status of STATUSES) {
      const dir = path.join(base, status);
      const files = fs.existsSync(dir)
        ? fs
            .readdirSync(dir)
            .filter((f) => f.endsWith('.txt'))
            .sort()
        : [];
      for (const f of files) {
        const name = f.replace(/\.txt$/, '');
        const got = classifyScreen(profile, viewOf(readLines(path.join(dir, f)))) ?? 'none';
        matrix[status] ??= {};
        matrix[status][got] = (matrix[status][got] ?? 0) + 1;
        total++;
        if (correct(status, got)) right++;
        else misses.push(`${status}/${f} read as ${got}`);
        const ansi = path.join(dir, `${name}.ansi`);
        const size = sizeOf(manifest, status, name);
        if (fs.existsSync(ansi) && !size.resized) {
          const replayed = classifyScreen(profile, viewOf(await replayAnsi(ansi, size))) ?? 'none';
          ansiTotal++;
          if (correct(status, replayed)) ansiRight++;
          else misses.push(`${status}/${name}.ansi replayed through Screen read as ${replayed}`);
          if (replayed === got) ansiSame++;
        }
      }
    }
    let turns = 0;
    let turnsRight = 0;
    for (const turn of dirs(path.join(base, 'turns'))) {
      const d = path.join(base, 'turns', turn);
      if (!fs.existsSync(path.join(d, 'expected-reply.txt'))) continue;
      const before = readLines(path.join(d, 'before.txt'));
      const after = readLines(path.join(d, 'after.txt'));
      let i = 0;
      while (i < before.length && before[i] === after[i]) i++;
      const got = profile.cleanOutput(after.slice(i), fs.readFileSync(path.join(d, 'user.txt'), 'utf8'));
      turns++;
      if (got === fs.readFileSync(path.join(d, 'expected-reply.txt'), 'utf8').trim()) turnsRight++;
      else misses.push(`turns/${turn}: reply extracted as ${JSON.stringify(got.slice(0, 120))}`);
    }
    const pct = (a, b) => (b ? `${((100 * a) / b).toFixed(1)}%` : 'n/a');
    console.log(
      `${cli} ${version}: status ${right}/${total} (${pct(right, total)})  ·  .ansi replays ${ansiRight}/${ansiTotal} (same reading as .txt: ${ansiSame}/${ansiTotal})  ·  reply extraction ${turnsRight}/${turns}`,
    );
    printMatrix(matrix);
    for (const m of misses) console.log(`    miss: ${m}`);
    console.log('');
    summary.push({ cli, version, right, total, ansiRight, ansiTotal, turnsRight, turns });
  }
}

if (!live) process.exit(summary.every((s) => s.right === s.total) ? 0 : 1);

// --- live: last streamed byte -> agent idle ---------------------------------------------------

const { startMockModelServer } = await import(pathToFileURL(path.join(ROOT, 'test', 'support', 'mock-model-server.mjs')).href);
const { prepareHome, CLIS_DIR } = await import(pathToFileURL(path.join(ROOT, 'test', 'support', 'cli-home.mjs')).href);
const CLI_BIN_DIR = path.join(CLIS_DIR, 'node_modules', '.bin');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function until(fn, ms, what) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn().catch(() => null);
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

function tree(root) {
  const kids = new Map();
  for (const n of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(n)) continue;
    try {
      const st = fs.readFileSync(`/proc/${n}/stat`, 'utf8');
      const ppid = Number(st.slice(st.lastIndexOf(')') + 2).split(' ')[1]);
      kids.set(ppid, [...(kids.get(ppid) ?? []), Number(n)]);
    } catch {
      // gone
    }
  }
  const out = [root];
  for (let i = 0; i < out.length; i++) out.push(...(kids.get(out[i]) ?? []));
  return out;
}

function isAlive(pid) {
  try {
    const st = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^[ZX]/.test(st.slice(st.lastIndexOf(')') + 2));
  } catch {
    return false;
  }
}

async function stop(child) {
  const pids = tree(child.pid);
  try {
    process.kill(-child.pid, 'SIGTERM');
  } catch {
    // gone
  }
  const end = Date.now() + 8000;
  while (Date.now() < end && pids.some(isAlive)) await sleep(50);
  for (const p of pids.filter(isAlive)) {
    try {
      process.kill(p, 'SIGKILL');
    } catch {
      // gone
    }
  }
}

// The newest turns of a request. Two, not one: after a few turns Claude Code sends a reminder
// as a user message of its own after the user's text.
const turnText = (r) => {
  const b = r.body ?? {};
  const list = Array.isArray(b.messages) ? b.messages : Array.isArray(b.input) ? b.input : Array.isArray(b.contents) ? b.contents : [];
  return JSON.stringify(list.slice(-2));
};

async function liveRun(cli) {
  const mock = await startMockModelServer();
  const h = await prepareHome[cli]({ baseUrl: mock.url });
  const port = await freePort();
  const env = {
    ...h.env,
    PATH: `${CLI_BIN_DIR}${path.delimiter}${h.env.PATH}`,
    SYNAPSE_REGISTRY_DIR: path.join(h.home, '.a2a', 'registry'),
    SYNAPSE_HOME: path.join(h.home, '.synapse'),
    SYNAPSE_REPLY_TARGET_DIR: path.join(h.home, '.a2a', 'reply'),
    SYNAPSE_MESSAGE_DIR: path.join(h.home, 'messages'),
    SYNAPSE_HISTORY_ENABLED: 'false',
  };
  const child = spawn(process.execPath, [BIN, cli, '--headless', '--port', String(port)], {
    cwd: h.cwd,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const ep = `http://127.0.0.1:${port}`;
  const get = async (p) => (await fetch(ep + p)).json();
  const changes = () =>
    out.split('\n').flatMap((l) => {
      const m = /^(\S+Z) \S+ status (\w+) -> (\w+)$/.exec(l);
      return m ? [{ at: Date.parse(m[1]), from: m[2], to: m[3] }] : [];
    });
  const lags = [];
  try {
    await until(async () => (await get('/status')).ready_for_messages, 60_000, `${cli} to take messages`);
    for (let i = 0; i < 2 * TURNS; i++) {
      // Half the turns answer at once (faster than a settled reading can see the CLI busy), half
      // stream like a real model: 0.3 s before the first delta, then one delta every 200 ms.
      const streamed = i >= TURNS;
      const text = `bench turn ${i} for ${cli}${streamed ? ' [[wait: 0.3]]' : ''}`;
      const res = await fetch(`${ep}/tasks/send`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ message: { role: 'user', parts: [{ type: 'text', text }] } }),
      });
      const { task } = await res.json();
      const done = await until(
        async () => {
          const t = await get(`/tasks/${task.id}`);
          return ['completed', 'failed', 'canceled'].includes(t.status) ? t : null;
        },
        60_000,
        `turn ${i}`,
      );
      const req = mock.requests.find((r) => r.answer === 'text' && turnText(r).includes(text));
      if (!req || req.endedAt === null) throw new Error(`no finished mock request for turn ${i}`);
      const idle = await until(
        async () => changes().find((c) => c.at >= req.endedAt && ['PROCESSING', 'WAITING'].includes(c.from) && ['DONE', 'READY'].includes(c.to)),
        10_000,
        'the idle status change',
      );
      lags.push({ streamed, idle: idle.at - req.endedAt, completed: Date.parse(done.status_timestamp) - req.endedAt, state: done.status });
      // Back to a settled prompt before the next turn, so turns do not overlap.
      await until(async () => ['DONE', 'READY'].includes((await get('/status')).status), 10_000, 'idle');
    }
  } finally {
    await stop(child);
    await mock.close();
    await h.cleanup();
  }
  return lags;
}

console.log(
  `live: one synapse agent per CLI (${path.relative(ROOT, BIN) || BIN}), ${TURNS} instant + ${TURNS} streamed text turns each, mock model on 127.0.0.1`,
);
console.log("  lag = the mock's last streamed byte (requests[i].endedAt) -> agent status PROCESSING -> DONE/READY (event log) / task completed");
let failed = false;
for (const cli of Object.keys(prepareHome)) {
  if (only.length && !only.includes(cli)) continue;
  try {
    const all = await liveRun(cli);
    for (const streamed of [false, true]) {
      const lags = all.filter((l) => l.streamed === streamed);
      const idle = lags.map((l) => l.idle);
      const comp = lags.map((l) => l.completed);
      console.log(
        `  ${pad(cli, 7)} ${streamed ? 'streamed' : 'instant '}  idle lag ms: ${idle.join(', ')} (p50 ${percentile(idle, 50)}, max ${Math.max(...idle)})  ·  completed lag ms: ${comp.join(', ')} (p50 ${percentile(comp, 50)}, max ${Math.max(...comp)})  ·  states: ${[...new Set(lags.map((l) => l.state))].join(',')}`,
      );
    }
  } catch (err) {
    failed = true;
    console.log(`  ${pad(cli, 7)} FAILED: ${err.message}`);
  }
}
process.exit(failed || !summary.every((s) => s.right === s.total) ? 1 : 0);
