// bench/monitor: how soon the live `synapse list` monitor shows a registry change. The monitor
// runs in a real PTY; an entry is rewritten (atomically, as agents write it) with a new status
// and task preview, and the time until that text arrives in the monitor's output is measured.
// The entry's endpoint answers nothing, so this is the registry watch path alone (an agent of
// ours also has its /events stream). The issue asks for an update within 200 ms.
// Usage: npm run build && node bench/monitor.mjs [changes=40]
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { BIN, fmt, freePort, percentile, tempEnv } from './lib.mjs';

const pty = createRequire(import.meta.url)('node-pty');
const changes = Number(process.argv[2] ?? 40);
const { env, cleanup } = tempEnv({ TERM: 'xterm-256color' });
delete env.CI; // Ink prints only its last frame in CI mode
const dir = env.SYNAPSE_REGISTRY_DIR;
fs.mkdirSync(dir, { recursive: true });
const port = await freePort(); // nobody listens: no /events stream, only the registry watch
const file = path.join(dir, `synapse-echo-${port}.json`);

function writeEntry(status, preview) {
  const now = new Date().toISOString();
  const entry = {
    agent_id: `synapse-echo-${port}`,
    agent_type: 'echo',
    name: 'bench',
    port,
    pid: process.pid,
    working_dir: env.HOME,
    endpoint: `http://127.0.0.1:${port}`,
    status,
    status_updated_at: now,
    current_task_preview: preview,
    task_received_at: preview ? now : null,
    registered_at: now,
    heartbeat_at: now,
  };
  fs.writeFileSync(`${file}.tmp`, JSON.stringify(entry));
  fs.renameSync(`${file}.tmp`, file);
}

writeEntry('READY', null);
const term = pty.spawn(process.execPath, [BIN, 'list'], { name: 'xterm-256color', cols: 200, rows: 20, cwd: env.HOME, env });
let output = '';
term.onData((d) => (output += d));

async function until(cond, ms, what) {
  const deadline = performance.now() + ms;
  while (!cond()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setImmediate(r));
  }
}

try {
  await until(() => output.includes(`synapse-echo-${port}`), 15_000, 'the monitor to show the entry');
  const latencies = [];
  for (let i = 0; i < changes; i++) {
    const token = `bench-task-${i}`;
    output = '';
    const t0 = performance.now();
    writeEntry(i % 2 ? 'READY' : 'PROCESSING', token);
    await until(() => output.includes(token), 5_000, `change ${i} on screen`);
    latencies.push(performance.now() - t0);
    // Let the frame settle, and step past Ink's frame throttle, before the next change.
    await new Promise((r) => setTimeout(r, 100));
  }
  console.log(`bench/monitor: ${changes} registry changes, the monitor in a 200x20 PTY (registry watch only)`);
  console.log(`  change -> on screen   p50 ${fmt(percentile(latencies, 50))}  p95 ${fmt(percentile(latencies, 95))}  max ${fmt(Math.max(...latencies))}`);
} finally {
  term.write('q');
  await new Promise((r) => setTimeout(r, 300));
  term.kill();
  cleanup();
}
