import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const BIN = path.join(ROOT, 'bin', 'synapse.js');

/** Polls `fn` until it returns something other than null/undefined/false, or throws at the deadline. */
export async function waitFor<T>(
  fn: () => T | null | undefined | false | Promise<T | null | undefined | false>,
  timeoutMs = 10_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastErr: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v !== null && v !== undefined && v !== false) return v;
    } catch (err) {
      lastErr = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${lastErr instanceof Error ? `: ${lastErr.message}` : ''}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A throw-away HOME with its own registry and state; `cleanup` removes it. */
export function tempHome(): { home: string; env: NodeJS.ProcessEnv; cleanup: () => void } {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'synapse-test-'));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: home,
    SYNAPSE_REGISTRY_DIR: path.join(home, '.a2a', 'registry'),
    SYNAPSE_HOME: path.join(home, '.synapse'),
    SYNAPSE_REPLY_TARGET_DIR: path.join(home, '.a2a', 'reply'),
    SYNAPSE_MESSAGE_DIR: path.join(home, 'messages'),
    SYNAPSE_HISTORY_ENABLED: 'false',
    ECHO_THINK_MS: '50',
  };
  for (const k of ['SYNAPSE_AGENT_ID', 'SYNAPSE_AGENT_TYPE', 'SYNAPSE_PORT', 'SYNAPSE_LOG_FILE']) delete env[k];
  return { home, env, cleanup: () => fs.rmSync(home, { recursive: true, force: true }) };
}

/** A port nobody listens on right now (the kernel picks it). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

/** A window of `size` consecutive free ports in a high range, for range-allocation tests. */
export async function freeRange(size: number): Promise<{ first: number; last: number }> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const first = 20000 + Math.floor(Math.random() * 30000);
    let ok = true;
    for (let p = first; p < first + size && ok; p++) ok = await canBind(p);
    if (ok) return { first, last: first + size - 1 };
  }
  throw new Error('no free port window found');
}

function canBind(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen({ port, host: '127.0.0.1', exclusive: true }, () => srv.close(() => resolve(true)));
  });
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a node script of the repository (or the CLI) to completion; killed after `timeoutMs`. */
export function runNode(args: string[], opts: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number; input?: string } = {}): Promise<RunResult> {
  return runFile(process.execPath, args, opts);
}

/** Runs an executable (e.g. the bin itself, through its shebang, as a shell does) to completion. */
export function runFile(
  file: string,
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number; input?: string } = {},
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { env: opts.env ?? process.env, cwd: opts.cwd ?? ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${file} ${args.join(' ')} timed out\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, opts.timeoutMs ?? 20_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(opts.input ?? '');
  });
}

/** Runs the built `synapse` CLI to completion. */
export function runCli(args: string[], opts: { env: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number; input?: string }): Promise<RunResult> {
  return runNode([BIN, ...args], opts);
}

/** Stops a child started `detached` (its own process group): SIGTERM, SIGKILL after 5 s. */
export async function stopGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const closed = new Promise((r) => child.once('close', r));
  try {
    process.kill(-child.pid!, 'SIGTERM');
  } catch {
    return;
  }
  const t = setTimeout(() => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // gone
    }
  }, 5000);
  await closed;
  clearTimeout(t);
}

export interface AgentHandle {
  child: ChildProcess;
  agentId: string;
  port: number;
  endpoint: string;
  output: () => string;
  stop: () => Promise<void>;
}

/** Runs `synapse <profile> --headless` as a child of the test (its own process group). */
export async function startHeadless(
  profile: string,
  opts: {
    env: NodeJS.ProcessEnv;
    args?: string[];
    cwd?: string;
    port?: number;
    waitReady?: boolean;
    statusHeaders?: () => Record<string, string>;
    /** Node flags before the bin (e.g. AGENT_NODE_FLAGS, what the bin's shebang gives a shell's `synapse`). */
    nodeFlags?: readonly string[];
  },
): Promise<AgentHandle> {
  const port = opts.port ?? (await freePort());
  const child = spawn(process.execPath, [...(opts.nodeFlags ?? []), BIN, profile, '--headless', '--port', String(port), ...(opts.args ?? [])], {
    env: opts.env,
    cwd: opts.cwd ?? ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const agentId = `synapse-${profile === 'dummy' ? 'echo' : profile}-${port}`;
  const endpoint = `http://127.0.0.1:${port}`;
  const handle: AgentHandle = {
    child,
    agentId,
    port,
    endpoint,
    output: () => out,
    stop: () => stopGroup(child),
  };
  registerCleanup(handle.stop);
  await waitFor(
    async () => {
      if (child.exitCode !== null) throw new Error(`agent exited early (${child.exitCode}):\n${out}`);
      const res = await fetch(`${endpoint}/status`, { headers: opts.statusHeaders?.() ?? {} }).catch(() => null);
      if (!res || res.status !== 200) return false;
      const body = (await res.json()) as { ready_for_messages: boolean };
      return opts.waitReady === false ? true : body.ready_for_messages;
    },
    15_000,
    `${agentId} to be ready`,
  );
  return handle;
}

/**
 * An echo agent that never replies by itself (`ECHO_AUTO_REPLY=0`): a message that expects an
 * answer waits on its reply stack for `graceS` seconds before its output (or MISSING_REPLY) ends it.
 */
export function startNonReplying(name: string, opts: { env: NodeJS.ProcessEnv; graceS?: number }): Promise<AgentHandle> {
  const env = { ...opts.env, ECHO_AUTO_REPLY: '0', SYNAPSE_REPLY_GRACE: String(opts.graceS ?? 60) };
  return startHeadless('echo', { env, args: ['--name', name] });
}

const cleanups: Array<() => Promise<void>> = [];
function registerCleanup(fn: () => Promise<void>): void {
  cleanups.push(fn);
}
/** Call from afterEach/afterAll: stops every agent started through these helpers. */
export async function cleanupAll(): Promise<void> {
  await Promise.all(cleanups.splice(0).map((f) => f().catch(() => undefined)));
}

export async function postJson(url: string, body: unknown): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // keep text
  }
  return { status: res.status, body: parsed, headers: res.headers };
}

export async function getJson(url: string): Promise<{ status: number; body: any }> {
  const res = await fetch(url);
  return { status: res.status, body: await res.json() };
}

export function textMessage(text: string, metadata?: Record<string, unknown>) {
  return { message: { role: 'user', parts: [{ type: 'text', text }] }, ...(metadata ? { metadata } : {}) };
}

/** Waits until the task (`GET /tasks/{id}`: the task itself, its status a string) is finished and returns it. */
export async function waitForTask(endpoint: string, id: string, timeoutMs = 10_000): Promise<any> {
  return waitFor(
    async () => {
      const { body } = await getJson(`${endpoint}/tasks/${id}`);
      return ['completed', 'failed', 'canceled'].includes(body?.status) ? body : null;
    },
    timeoutMs,
    `task ${id} to finish`,
  );
}

/** The text of a wire task's artifacts (`{type: 'text', data: '…'}`), one per line. */
export function artifactText(task: any): string {
  return (task.artifacts ?? []).map((a: any) => (typeof a.data === 'string' ? a.data : (a.data?.content ?? ''))).join('\n');
}
