// Shared helpers for the benchmark scripts: temp HOME, free ports, agent start/stop, stats.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../', import.meta.url));
/** `synapse`: run as a shell runs it, the bin itself, whose shebang gives node its flags and holds NODE_EXTRA_CA_CERTS aside. */
export const BIN = path.join(ROOT, 'bin', 'synapse.js');

export function tempEnv(extra = {}) {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'synapse-bench-'));
  const env = {
    ...process.env,
    HOME: home,
    SYNAPSE_REGISTRY_DIR: path.join(home, '.a2a', 'registry'),
    SYNAPSE_HOME: path.join(home, '.synapse'),
    SYNAPSE_HISTORY_ENABLED: 'false',
    ...extra,
  };
  delete env.SYNAPSE_AGENT_ID;
  return { home, env, cleanup: () => fs.rmSync(home, { recursive: true, force: true }) };
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

export async function startAgent(env, args = []) {
  const port = await freePort();
  const t0 = performance.now();
  const child = spawn(BIN, ['echo', '--headless', '--port', String(port), ...args], {
    env,
    stdio: 'ignore',
    detached: true,
  });
  const endpoint = `http://127.0.0.1:${port}`;
  let cardMs = null;
  for (;;) {
    if (child.exitCode !== null) throw new Error('agent exited');
    try {
      if (cardMs === null) {
        const r = await fetch(`${endpoint}/.well-known/agent.json`);
        if (r.status === 200) cardMs = performance.now() - t0;
      }
      const s = await (await fetch(`${endpoint}/status`)).json();
      if (s.ready_for_messages) break;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 2));
  }
  return { child, port, endpoint, cardMs, readyMs: performance.now() - t0, stop: () => stopAgent(child) };
}

export async function stopAgent(child) {
  if (child.exitCode !== null) return;
  const closed = new Promise((r) => child.once('exit', r));
  process.kill(-child.pid, 'SIGTERM');
  const t = setTimeout(() => process.kill(-child.pid, 'SIGKILL'), 5000);
  await closed;
  clearTimeout(t);
}

export function percentile(values, p) {
  const s = [...values].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}

export const fmt = (ms) => `${ms.toFixed(1)} ms`;

/** RSS and PSS (shared pages split between processes) of a process and all its descendants. */
export function treeMemory(rootPid) {
  const children = new Map();
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid).push(Number(name));
    } catch {
      // exited meanwhile
    }
  }
  const pids = [];
  const walk = (pid) => {
    pids.push(pid);
    for (const c of children.get(pid) ?? []) walk(c);
  };
  walk(rootPid);
  const per = pids.map((pid) => {
    const rollup = fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    const kb = (key) => Number(new RegExp(`^${key}:\\s+(\\d+)`, 'm').exec(rollup)?.[1] ?? 0);
    const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).slice(-2).join(' ');
    return { pid, cmd, rssMiB: kb('Rss') / 1024, pssMiB: kb('Pss') / 1024 };
  });
  return { per, rssMiB: per.reduce((a, p) => a + p.rssMiB, 0), pssMiB: per.reduce((a, p) => a + p.pssMiB, 0) };
}

/** A blocking A2A 1.0 SendMessage request (the SDK client's shape) with one text part. */
export const sendMessageRequest = (text) => ({
  tenant: '',
  message: {
    messageId: randomUUID(),
    role: 1, // ROLE_USER
    parts: [{ content: { $case: 'text', value: text }, mediaType: 'text/plain', filename: '', metadata: undefined }],
    contextId: '',
    taskId: '',
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  },
  configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately: false },
  metadata: undefined,
});
