import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { spawn, type ChildProcess } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { exited, json, killAll, registerAgent, synapse, tempProject, type Project } from './harness.js';

let project: Project;
const children: ChildProcess[] = [];
const servers: http.Server[] = [];

beforeEach(() => {
  project = tempProject();
});

afterEach(async () => {
  await killAll(children);
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
  project.cleanup();
});

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
    expect((await synapse(project, ['memory', 'save', 'auth-flow', 'JWT in an httpOnly cookie, refreshed every 15 minutes', '--tags', 'auth,Decision'])).stdout).toContain(
      'saved auth-flow [auth, decision]',
    );
    await synapse(project, ['memory', 'save', 'db', 'postgres; the auth table has a unique email', '--author', 'bob']);
    expect((await synapse(project, ['memory', 'save', 'db', 'postgres 17; auth table unique email', '--author', 'bob'])).stdout).toContain('updated db');
    const piped = await synapse(project, ['memory', 'save', 'from-pipe', '-'], { input: 'long text\nfrom stdin\n' });
    expect(piped.code).toBe(0);

    const list = await json(project, ['memory', 'list', '--json']);
    expect(list.map((m: { key: string }) => m.key)).toEqual(['from-pipe', 'db', 'auth-flow']);
    expect((await json(project, ['memory', 'list', '--tag', 'decision', '--json'])).map((m: { key: string }) => m.key)).toEqual(['auth-flow']);
    expect((await json(project, ['memory', 'list', '--author', 'bob', '--json'])).map((m: { key: string }) => m.key)).toEqual(['db']);
    expect((await synapse(project, ['memory', 'list'])).stdout).toMatch(/KEY\s+TAGS\s+AUTHOR\s+UPDATED\s+CONTENT/);

    const hits = await json(project, ['memory', 'search', 'auth', '--json']);
    expect(hits.map((h: { key: string }) => h.key)).toEqual(['auth-flow', 'db']);
    expect((await synapse(project, ['memory', 'search', 'nothing-like-this'])).stdout).toContain('No notes match');

    expect((await synapse(project, ['memory', 'show', 'from-pipe'])).stdout).toContain('long text\nfrom stdin');
    const missing = await synapse(project, ['memory', 'show', 'auth']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('similar keys: auth-flow');

    const stats = await json(project, ['memory', 'stats', '--json']);
    expect(stats).toMatchObject({ count: 3, tags: { auth: 1, decision: 1 } });
    expect((await synapse(project, ['memory', 'delete', 'db'])).stdout).toContain('deleted db');
    expect((await synapse(project, ['memory', 'delete', 'db'])).code).toBe(1);
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
    const other = path.join(project.home, 'other-project');
    fs.mkdirSync(other);
    registerAgent(project, { agent_id: 'synapse-claude-8100', name: 'alice', pid: process.pid, port: here.port, working_dir: project.dir });
    registerAgent(project, { agent_id: 'synapse-codex-8120', name: 'busy', pid: process.pid, port: refusing.port, working_dir: project.dir });
    registerAgent(project, { agent_id: 'synapse-gemini-8110', name: 'far', pid: process.pid, port: elsewhere.port, working_dir: other });
    registerAgent(project, { agent_id: 'synapse-echo-8190', name: 'gone', pid: deadPid, port: here.port, working_dir: project.dir });

    const r = await synapse(project, ['memory', 'save', 'api-style', 'snake_case JSON everywhere', '--notify', '--author', 'lead']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('notified 1 agent(s); 1 did not accept the notice');
    expect(here.bodies).toEqual([
      {
        message: { role: 'user', parts: [{ type: 'text', text: '[shared memory] lead saved api-style: snake_case JSON everywhere (read it: synapse memory show api-style)' }] },
        metadata: { response_mode: 'silent' },
      },
    ]);
    expect(elsewhere.bodies).toEqual([]);

    // The saving agent itself is not notified.
    const self = await json(project, ['memory', 'save', 'k', 'v', '--notify', '--json'], { SYNAPSE_AGENT_ID: 'synapse-claude-8100' });
    expect(self.notify).toEqual({ notified: [], failed: ['synapse-codex-8120'] });
    expect(here.bodies).toHaveLength(1);
  });

  it('refuses bad input and honours SYNAPSE_SHARED_MEMORY_ENABLED', async () => {
    expect((await synapse(project, ['memory', 'save', 'k', '   '])).stderr).toContain('content must not be empty');
    expect((await synapse(project, ['memory', 'search', '!!!'])).stderr).toContain('at least one word');
    expect((await synapse(project, ['memory', 'list', '--limit', '0'])).stderr).toContain('--limit must be a whole number');
    const off = await synapse(project, ['memory', 'list'], { env: { SYNAPSE_SHARED_MEMORY_ENABLED: 'false' } });
    expect(off.code).toBe(1);
    expect(off.stderr).toContain('shared memory is disabled');
  });

  it('names a corrupt memory file', async () => {
    const file = path.join(project.dir, '.synapse', 'memory.db');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, 'nope '.repeat(1000));
    const r = await synapse(project, ['memory', 'search', 'x']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(file);
  });

  it('has --help with an example on every subcommand', async () => {
    for (const sub of ['save', 'list', 'search', 'show', 'delete', 'stats']) {
      const help = await synapse(project, ['memory', sub, '--help']);
      expect(help.stdout).toContain('Examples:');
      expect(help.stdout).toContain(`synapse memory ${sub}`);
    }
  });
});
