import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import type * as NodePty from 'node-pty';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { GrpcTransportFactory } from '@a2a-js/sdk/client/grpc';
import { BIN, cleanupAll, freePort, getJson, ROOT, runCli, startHeadless, tempHome, waitFor, type AgentHandle } from '../../support/synapse.js';
import { sendRequest } from './sdk-client.js';

/**
 * The A2A stack loads on first use (guides/a2a.md, "What an idle agent loads"): an idle agent has
 * not loaded it, and the first request over every binding right after start still succeeds.
 * Which modules a process loaded is read from the process itself (test/support/module-trace.mjs).
 */
const pty = createRequire(import.meta.url)('node-pty') as typeof NodePty;
const t = tempHome();
const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
  await cleanupAll();
});
afterAll(() => t.cleanup());

/** Loaded lazily: the SDK (with protobuf), gRPC, and the schema compilers (validators come precompiled). */
const LAZY = [
  '/@a2a-js/sdk/',
  '/@bufbuild/protobuf/',
  '/@grpc/grpc-js/',
  '/@fastify/ajv-compiler/',
  '/ajv/dist/core.js',
  '/@fastify/fast-json-stringify-compiler/',
];

function canBind(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen({ port, host: '127.0.0.1', exclusive: true }, () => s.close(() => resolve(true)));
  });
}

/** A free port whose gRPC port (+1000) is free too. */
async function agentPort(): Promise<number> {
  for (;;) {
    const port = await freePort();
    if (port + 1000 <= 65535 && (await canBind(port + 1000))) return port;
  }
}

function loaded(dir: string, pid: number): string[] {
  const file = path.join(dir, `${pid}.txt`);
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
}

const lazyIn = (modules: string[]) => LAZY.filter((m) => modules.some((p) => p.includes(m)));

async function rpc(url: string, body: unknown, headers: Record<string, string> = { 'a2a-version': '1.0' }): Promise<any> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return res.json();
}

const sendMessage = (text: string) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'SendMessage',
  params: { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }] } },
});

async function grpcSend(port: number, text: string): Promise<any> {
  const url = `127.0.0.1:${port + 1000}`;
  const card = { supportedInterfaces: [{ url, protocolBinding: 'GRPC', protocolVersion: '1.0', tenant: '' }] } as never;
  const transport = await new GrpcTransportFactory().create(url, card);
  return transport.sendMessage(sendRequest(text), { serviceParameters: { 'A2A-Version': '1.0' } });
}

describe('an idle agent', () => {
  it('started with `synapse start` has loaded neither the A2A SDK, gRPC, AJV nor commander; each loads when used', async () => {
    const dir = fs.mkdtempSync(path.join(t.home, 'trace-'));
    const port = await agentPort();
    const tracer = pathToFileURL(path.join(ROOT, 'test/support/module-trace.mjs')).href;
    const env = { ...t.env, NODE_OPTIONS: `--import=${tracer}`, MODULE_TRACE_DIR: dir, ECHO_THINK_MS: '0' };
    const started = await runCli(['start', 'echo', '--port', String(port), '--json'], { env });
    expect(started.code, started.stderr).toBe(0);
    const pid = JSON.parse(started.stdout).pid as number;
    stops.push(async () => {
      try {
        process.kill(-pid, 'SIGTERM');
      } catch {
        return; // already gone
      }
      await waitFor(() => !fs.existsSync(path.join(t.env.SYNAPSE_REGISTRY_DIR!, `synapse-echo-${port}.json`)), 10_000, 'the agent to stop');
    });
    const endpoint = `http://127.0.0.1:${port}`;
    await waitFor(async () => (await getJson(`${endpoint}/status`)).body.ready_for_messages === true, 15_000, 'the agent to take messages');
    // A message through Synapse's own route: the idle agent has done real work, validators included.
    const sent = await fetch(`${endpoint}/tasks/send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: { role: 'user', parts: [{ type: 'text', text: 'hello' }] } }),
    });
    expect(sent.status).toBe(202);
    // And its card, as a peer reads it (the card's ETag is no node:crypto hash).
    expect((await fetch(`${endpoint}/.well-known/agent.json`)).status).toBe(200);

    const idle = loaded(dir, pid);
    // The trace sees the agent's own modules, so an empty answer below is not an empty trace. The
    // agent runs the build's bundle (scripts/bundle.mjs): Fastify is in its vendor-fastify chunk.
    expect(idle.some((p) => p.endsWith('/dist/bundle/vendor-fastify.js'))).toBe(true);
    expect(idle.some((p) => p.endsWith('/dist/bundle/agent.js'))).toBe(true);
    expect(idle.filter((p) => p.includes('/node_modules/fastify/'))).toEqual([]);
    expect(lazyIn(idle)).toEqual([]);
    expect(idle.filter((p) => /\/commander\/|\/dist\/bundle\/program\.js$/.test(p))).toEqual([]);
    // Nor did `synapse start echo` itself (the fast path of a plain agent start, src/cli/fast-start.ts).
    const everyProcess = fs.readdirSync(dir).flatMap((f) => fs.readFileSync(path.join(dir, f), 'utf8').split('\n'));
    expect(fs.readdirSync(dir).length).toBeGreaterThan(1);
    expect(everyProcess.filter((p) => /\/commander\/|\/dist\/bundle\/program\.js$/.test(p))).toEqual([]);
    // The MCP server's SDK, zod and the TOML parser load only in `synapse mcp serve` / `install`.
    expect(idle.filter((p) => /\/node_modules\/(@modelcontextprotocol\/sdk|zod|smol-toml)\//.test(p))).toEqual([]);
    // Nor the settings/skills schemas (TypeBox), the YAML parser or the prompts.
    expect(idle.filter((p) => /\/node_modules\/(typebox|yaml|@inquirer)\//.test(p))).toEqual([]);
    // Nor the live monitor's Ink and React.
    expect(idle.filter((p) => MONITOR_ONLY.test(p))).toEqual([]);
    // Nor the Canvas dashboard's server and browser packages (only `synapse canvas serve` loads them).
    expect(idle.filter((p) => /\/node_modules\/(@fastify\/websocket|ws|marked|dompurify|mermaid|chart\.js|playwright-core)\//.test(p))).toEqual([]);
    expect(idle.filter((p) => /\/dist\/(server\/canvas|store\/canvas|bundle\/canvas)/.test(p))).toEqual([]);
    // The precompiled validators, each in a file of its own: only those of the routes used so far.
    const validators = idle.filter((p) => /\/dist\/server\/validators\.generated\/\d+\.cjs$/.test(p));
    expect(validators.length).toBeGreaterThan(0);
    expect(validators.length).toBeLessThan(fs.readdirSync(path.join(ROOT, 'dist/server/validators.generated')).length / 2);
    // Nor Node's HTTP/2 (~2 MiB): Fastify requires it for an option the agent never sets (scripts/bundle.mjs).
    expect(idle.filter((p) => p === 'node:http2' || p === 'http2')).toEqual([]);
    expect(idle).toContain('node:http');
    // Nor node:https (tls and node:crypto with it), also Fastify's for an option never set, nor
    // node:crypto itself: ids come from /dev/urandom (src/uuid.ts), the card's ETag from a plain hash.
    expect(idle.filter((p) => /^(node:)?(https|tls|crypto)$/.test(p))).toEqual([]);
    // Nor the PostgreSQL client: only a configured postgres:// store loads it (issue 22).
    expect(idle.filter((p) => /\/node_modules\/(pg|pg-pool|pg-protocol|pg-types|pgpass)\/|\/dist\/(store|bundle)\/(pg-db|board-pg)\.js/.test(p))).toEqual([]);

    // The first JSON-RPC request loads the SDK, not gRPC; the first gRPC call loads gRPC.
    expect((await rpc(`${endpoint}/a2a/jsonrpc`, sendMessage('over json-rpc'))).result.task.status.state).toBe('TASK_STATE_COMPLETED');
    const afterJsonRpc = lazyIn(loaded(dir, pid));
    expect(afterJsonRpc).toContain('/@a2a-js/sdk/');
    expect(afterJsonRpc).not.toContain('/@grpc/grpc-js/');
    expect((await grpcSend(port, 'over grpc')).status.state).toBe(3); // TASK_STATE_COMPLETED
    expect(lazyIn(loaded(dir, pid))).toContain('/@grpc/grpc-js/');
  });
});

/** The live monitor's libraries: Ink, React and what only they bring. */
const MONITOR_ONLY = /\/node_modules\/(ink|react|react-reconciler|yoga-layout|string-width|ansi-escapes|scheduler)\//;

/** Runs one CLI command with the module trace on; the modules its process loaded. */
async function traced(args: string[], env: NodeJS.ProcessEnv = t.env): Promise<string[]> {
  const dir = fs.mkdtempSync(path.join(t.home, 'trace-'));
  const tracer = pathToFileURL(path.join(ROOT, 'test/support/module-trace.mjs')).href;
  const r = await runCli(args, { env: { ...env, NODE_OPTIONS: `--import=${tracer}`, MODULE_TRACE_DIR: dir } });
  expect(r.code, r.stderr).toBe(0);
  const [file] = fs.readdirSync(dir);
  return fs.readFileSync(path.join(dir, file!), 'utf8').split('\n').filter(Boolean);
}

const libsIn = (modules: string[], pattern: RegExp) => [...new Set(modules.filter((p) => pattern.test(p)).map((p) => pattern.exec(p)![1]))];

describe('a plain command', () => {
  it('`synapse list` loads no schema library, YAML parser, prompts, MCP SDK or HTTP server (each costs start-up time)', async () => {
    const modules = await traced(['list', '--json']);
    expect(modules.some((p) => p.endsWith('/dist/bundle/program.js'))).toBe(true);
    const heavy = /\/node_modules\/(typebox|yaml|@inquirer|@modelcontextprotocol|zod|smol-toml|fastify|@a2a-js|@grpc)\//;
    expect(libsIn(modules, heavy)).toEqual([]);
    // Nor the bundled Fastify, pino or xterm (the agent's chunks).
    expect(modules.filter((p) => /\/dist\/bundle\/vendor-(fastify|pino|xterm)\.js$/.test(p))).toEqual([]);
  });

  it.each(['list --json', 'list --plain', 'list', 'profiles --json', 'config get list.columns'])(
    '`synapse %s` without a terminal does not load Ink or React (only the live monitor does)',
    async (command) => {
      const modules = await traced(command.split(' '));
      expect(modules.some((p) => p.endsWith('/dist/bundle/program.js'))).toBe(true);
      expect(libsIn(modules, MONITOR_ONLY)).toEqual([]);
    },
  );

  it('`synapse echo` in a terminal (the fast path of a plain agent start) loads neither commander nor the command tree, and before the spawn nothing heavy', async () => {
    const dir = fs.mkdtempSync(path.join(t.home, 'trace-'));
    const port = await agentPort();
    const tracer = pathToFileURL(path.join(ROOT, 'test/support/module-trace.mjs')).href;
    const env: NodeJS.ProcessEnv = { ...t.env, NODE_OPTIONS: `--import=${tracer}`, MODULE_TRACE_DIR: dir, TERM: 'xterm-256color', ECHO_THINK_MS: '0' };
    const term = pty.spawn(process.execPath, [BIN, 'echo', '--port', String(port), '--no-setup'], {
      name: 'xterm-256color',
      cols: 120,
      rows: 30,
      cwd: t.home,
      env,
    });
    const exited = new Promise<number>((resolve) => term.onExit(({ exitCode }) => resolve(exitCode)));
    let screen = '';
    term.onData((d) => (screen += d));
    try {
      await waitFor(() => screen.includes('echo> '), 15_000, "the echo CLI's prompt on screen");
      await waitFor(async () => (await getJson(`http://127.0.0.1:${port}/status`)).body.ready_for_messages === true, 15_000, 'the agent to take messages');
      const modules = loaded(dir, term.pid);
      expect(modules.some((p) => p.endsWith('/dist/bundle/agent.js'))).toBe(true);
      expect(modules.filter((p) => /\/commander\/|\/dist\/bundle\/program\.js$/.test(p))).toEqual([]);
      // Before the CLI is spawned (node-pty loads for the spawn): the agent-start chunk, and
      // neither the heavy modules, the agent itself, nor node:crypto (guides/agent-runtime.md, Start-up).
      const spawnAt = modules.findIndex((p) => p.includes('/node_modules/node-pty/'));
      expect(spawnAt).toBeGreaterThan(0);
      const beforeSpawn = modules.slice(0, spawnAt);
      expect(beforeSpawn.some((p) => p.endsWith('/dist/bundle/agent-start.js'))).toBe(true);
      expect(beforeSpawn.filter((p) => /\/dist\/bundle\/(vendor-[a-z]+|agent|heavy-modules)\.js$|\/better-sqlite3\/|^node:crypto$/.test(p))).toEqual([]);
      term.kill('SIGTERM');
      await exited;
    } finally {
      term.kill('SIGKILL');
    }
    await waitFor(() => !fs.existsSync(path.join(t.env.SYNAPSE_REGISTRY_DIR!, `synapse-echo-${port}.json`)), 10_000, 'the registry entry to go');
  });

  it('`synapse list` on a terminal (the monitor) loads Ink and React: the check above would see them', async () => {
    const dir = fs.mkdtempSync(path.join(t.home, 'trace-'));
    const tracer = pathToFileURL(path.join(ROOT, 'test/support/module-trace.mjs')).href;
    const env: NodeJS.ProcessEnv = { ...t.env, NODE_OPTIONS: `--import=${tracer}`, MODULE_TRACE_DIR: dir, TERM: 'xterm-256color' };
    delete env.CI; // in CI mode Ink prints only its last frame
    const term = pty.spawn(process.execPath, [BIN, 'list'], { name: 'xterm-256color', cols: 120, rows: 30, cwd: t.home, env });
    const exited = new Promise<number>((resolve) => term.onExit(({ exitCode }) => resolve(exitCode)));
    let screen = '';
    term.onData((d) => (screen += d));
    try {
      await waitFor(() => screen.includes('Synapse agents'), 15_000, 'the monitor on screen');
      term.write('q');
      expect(await exited).toBe(0);
    } finally {
      term.kill();
    }
    const modules = fs.readdirSync(dir).flatMap((f) => fs.readFileSync(path.join(dir, f), 'utf8').split('\n'));
    expect(libsIn(modules, MONITOR_ONLY)).toEqual(expect.arrayContaining(['ink', 'react']));
  });
});

type Binding = 'JSON-RPC 1.0' | 'JSON-RPC 0.3' | 'HTTP+JSON' | 'gRPC' | 'HTTP+JSON stream (SSE)';

/** The first A2A request an agent gets, sent the moment it takes messages; resolves with the final state (in 1.0's names). */
const FIRST: Record<Binding, (a: AgentHandle) => Promise<string>> = {
  'JSON-RPC 1.0': async (a) => (await rpc(`${a.endpoint}/a2a/jsonrpc`, sendMessage('first'))).result.task.status.state,
  'JSON-RPC 0.3': async (a) =>
    (
      await rpc(
        `${a.endpoint}/a2a/v0.3/jsonrpc`,
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'message/send',
          params: { message: { kind: 'message', messageId: randomUUID(), role: 'user', parts: [{ kind: 'text', text: 'first' }] } },
        },
        {},
      )
    ).result.status.state.replace('completed', 'TASK_STATE_COMPLETED'),
  'HTTP+JSON': async (a) =>
    (await rpc(`${a.endpoint}/a2a/rest/v1/message:send`, { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'first' }] } })).task.status
      .state,
  gRPC: async (a) => ((await grpcSend(a.port, 'first')).status.state === 3 ? 'TASK_STATE_COMPLETED' : 'not completed'),
  'HTTP+JSON stream (SSE)': async (a) => {
    const res = await fetch(`${a.endpoint}/a2a/rest/v1/message:stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({ message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'first' }] } }),
    });
    expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
    const events = (await res.text())
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => JSON.parse(l.slice(6)));
    return events.at(-1).statusUpdate.status.state;
  },
};

describe.each(Object.keys(FIRST) as Binding[])('the first A2A request right after start, over %s', (binding) => {
  it('succeeds while the A2A stack loads for it', async () => {
    const a = await startHeadless('echo', { env: { ...t.env, ECHO_THINK_MS: '0' }, port: await agentPort() });
    expect(await FIRST[binding](a)).toBe('TASK_STATE_COMPLETED');
  });
});
