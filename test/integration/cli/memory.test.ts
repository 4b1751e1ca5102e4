import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { deleteMemory, listMemory, memoryStats, saveMemory, searchMemory, showMemory } from '../../../src/cli/commands/memory.js';
import type { CommandIo } from '../../../src/cli/io.js';
import { runCommand, runJson } from '../../support/cli-io.js';
import { exited, registerAgent, useTempProject } from '../../support/project.js';

/** `synapse memory …` in-process, on a real database in a temp project. */

const ctx = useTempProject();
const children = ctx.children;
const servers: http.Server[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

const io = (env: NodeJS.ProcessEnv = {}, stdin?: string) => ({
  env: { ...ctx.project.env, ...env },
  cwd: ctx.project.dir,
  ...(stdin === undefined ? {} : { stdin }),
});
const run = (command: (io: CommandIo) => Promise<void>, env?: NodeJS.ProcessEnv) => runCommand(command, io(env));
const json = <T = any>(command: (io: CommandIo) => Promise<void>, env?: NodeJS.ProcessEnv) => runJson<T>(command, io(env));
const keys = (list: { key: string }[]) => list.map((m) => m.key);

/** A stand-in agent endpoint that records what `/tasks/send` receives. */
async function fakeAgent(status = 200): Promise<{ port: number; bodies: unknown[] }> {
  const bodies: unknown[] = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (d) => (raw += d));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/tasks/send') bodies.push(JSON.parse(raw));
      res.writeHead(status, { 'content-type': 'application/json' }).end('{}');
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: (server.address() as AddressInfo).port, bodies };
}

describe('synapse memory', () => {
  it('saves, lists, searches, shows, deletes and counts notes', async () => {
    expect((await run((c) => saveMemory('auth-flow', 'JWT in an httpOnly cookie, refreshed every 15 minutes', { tags: 'auth,Decision' }, c))).stdout).toContain(
      'saved auth-flow [auth, decision]',
    );
    await run((c) => saveMemory('db', 'postgres; the auth table has a unique email', { author: 'bob' }, c));
    expect((await run((c) => saveMemory('db', 'postgres 17; auth table unique email', { author: 'bob' }, c))).stdout).toContain('updated db');
    const piped = await runCommand((c) => saveMemory('from-pipe', '-', {}, c), io({}, 'long text\nfrom stdin\n'));
    expect(piped.code).toBe(0);

    expect(keys(await json((c) => listMemory({ limit: '100', json: true }, c)))).toEqual(['from-pipe', 'db', 'auth-flow']);
    expect(keys(await json((c) => listMemory({ tag: 'decision', limit: '100', json: true }, c)))).toEqual(['auth-flow']);
    expect(keys(await json((c) => listMemory({ author: 'bob', limit: '100', json: true }, c)))).toEqual(['db']);
    expect(keys(await json((c) => listMemory({ limit: '1', json: true }, c)))).toEqual(['from-pipe']);
    expect((await run((c) => listMemory({ limit: '100' }, c))).stdout).toMatch(/KEY\s+TAGS\s+AUTHOR\s+UPDATED\s+CONTENT/);

    const hits = await json((c) => searchMemory('auth', { limit: '20', json: true }, c));
    expect(keys(hits)).toEqual(['auth-flow', 'db']);
    expect((await run((c) => searchMemory('auth', { limit: '20' }, c))).stdout).toMatch(/#\s+KEY\s+TAGS\s+CONTENT\n1\s+auth-flow\s+auth,decision/);
    expect((await run((c) => searchMemory('nothing-like-this', { limit: '20' }, c))).stdout).toContain('No notes match');

    expect((await run((c) => showMemory('from-pipe', {}, c))).stdout).toContain('long text\nfrom stdin');
    expect(await json((c) => showMemory('db', { json: true }, c))).toMatchObject({ key: 'db', author: 'bob', content: 'postgres 17; auth table unique email' });
    const missing = await run((c) => showMemory('auth', {}, c));
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('similar keys: auth-flow');

    const stats = await json((c) => memoryStats({ json: true }, c));
    expect(stats).toMatchObject({ count: 3, tags: { auth: 1, decision: 1 } });
    expect((await run((c) => memoryStats({}, c))).stdout).toMatch(
      /^notes: {3}3 \(\d+ bytes\)\n[\s\S]*authors: [\s\S]*bob \(1\)[\s\S]*\ntags: {4}auth \(1\), decision \(1\)\n$/,
    );
    expect((await run((c) => deleteMemory('db', {}, c))).stdout).toContain('deleted db');
    expect((await run((c) => deleteMemory('db', {}, c))).code).toBe(1);
  });

  it('--notify tells the live agents of this directory, and reports how many', async () => {
    const here = await fakeAgent();
    const refusing = await fakeAgent(503);
    const elsewhere = await fakeAgent();
    const deadAgent = spawn('sleep', ['60']);
    children.push(deadAgent);
    const deadPid = deadAgent.pid!;
    deadAgent.kill('SIGKILL');
    await exited(deadAgent);
    const other = path.join(ctx.project.home, 'other-project');
    fs.mkdirSync(other);
    registerAgent(ctx.project, { agent_id: 'synapse-claude-8100', name: 'alice', pid: process.pid, port: here.port, working_dir: ctx.project.dir });
    registerAgent(ctx.project, { agent_id: 'synapse-codex-8120', name: 'busy', pid: process.pid, port: refusing.port, working_dir: ctx.project.dir });
    registerAgent(ctx.project, { agent_id: 'synapse-gemini-8110', name: 'far', pid: process.pid, port: elsewhere.port, working_dir: other });
    registerAgent(ctx.project, { agent_id: 'synapse-echo-8190', name: 'gone', pid: deadPid, port: here.port, working_dir: ctx.project.dir });

    const r = await run((c) => saveMemory('api-style', 'snake_case JSON everywhere', { notify: true, author: 'lead' }, c));
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('notified 1 agent(s); 1 did not accept the notice');
    expect(here.bodies).toEqual([
      {
        message: {
          role: 'user',
          parts: [{ type: 'text', text: '[shared memory] lead saved api-style: snake_case JSON everywhere (read it: synapse memory show api-style)' }],
        },
        metadata: { response_mode: 'silent' },
      },
    ]);
    expect(elsewhere.bodies).toEqual([]);

    // The saving agent itself is not notified.
    const self = await json((c) => saveMemory('k', 'v', { notify: true, json: true }, c), { SYNAPSE_AGENT_ID: 'synapse-claude-8100' });
    expect(self.notify).toEqual({ notified: [], failed: ['synapse-codex-8120'] });
    expect(self.memory).toMatchObject({ key: 'k', author: 'synapse-claude-8100' });
    expect(here.bodies).toHaveLength(1);
  });

  it('refuses bad input and honours SYNAPSE_SHARED_MEMORY_ENABLED', async () => {
    expect((await run((c) => saveMemory('k', '   ', {}, c))).stderr).toContain('content must not be empty');
    expect((await run((c) => searchMemory('!!!', { limit: '20' }, c))).stderr).toContain('at least one word');
    expect((await run((c) => listMemory({ limit: '0' }, c))).stderr).toContain('--limit must be a whole number');
    const off = await run((c) => listMemory({ limit: '100' }, c), { SYNAPSE_SHARED_MEMORY_ENABLED: 'false' });
    expect(off.code).toBe(1);
    expect(off.stderr).toContain('shared memory is disabled');
  });

  it('names a corrupt memory file', async () => {
    const file = path.join(ctx.project.dir, '.synapse', 'memory.db');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, 'nope '.repeat(1000));
    const r = await run((c) => searchMemory('x', { limit: '20' }, c));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(file);
  });
});
