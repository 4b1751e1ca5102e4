import fs from 'node:fs';
import path from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { installErrorHandler } from '../../../src/server/errors.js';
import { teamStoreRoutes } from '../../../src/server/routes/team-store.js';
import { registerAgent, tempProject, type Project } from './harness.js';

let project: Project;
let app: FastifyInstance;

async function build(env: NodeJS.ProcessEnv = project.env): Promise<FastifyInstance> {
  const a = Fastify({ logger: false });
  installErrorHandler(a);
  await a.register(teamStoreRoutes, { workingDir: project.dir, agentId: 'synapse-claude-8100', env });
  await a.ready();
  return a;
}

async function call(method: 'GET' | 'POST' | 'DELETE', url: string, payload?: unknown) {
  const res = await app.inject({ method, url, ...(payload === undefined ? {} : { payload: payload as object }) });
  const body = res.headers['content-type']?.toString().startsWith('application/json') ? res.json() : res.body;
  return { status: res.statusCode, body };
}

beforeEach(async () => {
  project = tempProject();
  app = await build();
});

afterEach(async () => {
  await app.close();
  project.cleanup();
});

describe('task board routes', () => {
  it('create, claim, complete, fail, reopen and list over HTTP', async () => {
    registerAgent(project, { agent_id: 'synapse-claude-8100', name: 'alice', pid: process.pid, port: 8100, working_dir: project.dir });
    const a = await call('POST', '/tasks/board', { subject: 'design', priority: 5, component: 'api', milestone: 'm1' });
    expect(a.status).toBe(201);
    const b = await call('POST', '/tasks/board', { subject: 'build', blocked_by: [a.body.task.id.slice(0, 8)], component: 'api' });
    expect(b.body.task.blocked).toBe(true);

    const blocked = await call('POST', `/tasks/board/${b.body.task.id}/claim`, { agent_id: 'bob' });
    expect(blocked.status).toBe(409);
    expect(blocked.body.error.code).toBe('blocked');

    const claimed = await call('POST', `/tasks/board/${a.body.task.id}/claim`);
    expect(claimed.body.task.claimed_by).toBe('synapse-claude-8100');
    const again = await call('POST', `/tasks/board/${a.body.task.id}/claim`, { agent_id: 'bob' });
    expect(again.status).toBe(409);
    expect(again.body.error.message).toContain('claimed by synapse-claude-8100');

    const done = await call('POST', `/tasks/board/${a.body.task.id}/complete`);
    expect(done.body.unblocked.map((t: { id: string }) => t.id)).toEqual([b.body.task.id]);
    expect((await call('POST', `/tasks/board/${b.body.task.id}/fail`, { reason: 'no time' })).body.task.fail_reason).toBe('no time');
    expect((await call('POST', `/tasks/board/${b.body.task.id}/reopen`)).body.task.status).toBe('pending');

    const list = await call('GET', '/tasks/board?component=api');
    expect(list.body.tasks.map((t: { subject: string }) => t.subject)).toEqual(['build', 'design']);
    expect(list.body.tasks[1]).toMatchObject({ claimed_by_name: 'alice' });
    const grouped = await call('GET', '/tasks/board?group_by=milestone');
    expect(grouped.body.groups.map((g: { key: string | null }) => g.key)).toEqual(['m1', null]);
    const onlyM1 = await call('GET', '/tasks/board?milestone=m1&status=completed');
    expect(onlyM1.body.tasks).toHaveLength(1);
    const table = await call('GET', '/tasks/board?format=table&group_by=status');
    expect(table.body).toContain('== pending (0/1 completed) ==');
    expect(table.body).toContain('alice');
    const one = await call('GET', `/tasks/board/${b.body.task.id.slice(0, 8)}`);
    expect(one.body.blockers).toEqual([]);
  });

  it('creates a plan as one batch and refuses a cyclic one', async () => {
    const x = '10000000-0000-4000-8000-000000000001';
    const y = '20000000-0000-4000-8000-000000000002';
    const plan = await call('POST', '/tasks/board', {
      plan_id: 'p1',
      tasks: [
        { id: x, subject: 'x' },
        { id: y, subject: 'y', blocked_by: [x] },
      ],
    });
    expect(plan.status).toBe(201);
    expect(plan.body.tasks.map((t: { plan_id: string; blocked: boolean }) => [t.plan_id, t.blocked])).toEqual([
      ['p1', false],
      ['p1', true],
    ]);
    const cyclic = await call('POST', '/tasks/board', {
      tasks: [
        { id: '30000000-0000-4000-8000-000000000003', subject: 'a', blocked_by: ['40000000-0000-4000-8000-000000000004'] },
        { id: '40000000-0000-4000-8000-000000000004', subject: 'b', blocked_by: ['30000000-0000-4000-8000-000000000003'] },
      ],
    });
    expect(cyclic.status).toBe(400);
    expect(cyclic.body.error.message).toContain('dependency cycle refused');
  });

  it('validates bodies and queries and maps store errors to statuses', async () => {
    expect((await call('POST', '/tasks/board', { subject: 'x', priority: 9 })).status).toBe(400);
    expect((await call('POST', '/tasks/board', {})).body.error.code).toBe('invalid_input');
    expect((await call('GET', '/tasks/board?group_by=owner')).status).toBe(400);
    expect((await call('GET', '/tasks/board?status=done')).body.error.message).toContain("unknown status 'done'");
    const unknown = await call('POST', '/tasks/board/deadbeef/claim');
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'task_not_found']);
    await call('POST', '/tasks/board', { id: 'abc00000-0000-4000-8000-000000000001', subject: 'one' });
    await call('POST', '/tasks/board', { id: 'abc00000-0000-4000-8000-000000000002', subject: 'two' });
    const amb = await call('POST', '/tasks/board/abc/complete');
    expect([amb.status, amb.body.error.code]).toEqual([409, 'ambiguous_task']);
    expect((await call('POST', '/tasks/board/abc00000-0000-4000-8000-000000000001/fail', {})).status).toBe(400);
    expect((await call('POST', '/tasks/board/purge', { older_than: 'later' })).status).toBe(400);
  });

  it('purges with status, age and dry run', async () => {
    const t = await call('POST', '/tasks/board', { subject: 'done' });
    await call('POST', `/tasks/board/${t.body.task.id}/complete`);
    const dry = await call('POST', '/tasks/board/purge', { status: 'completed', dry_run: true });
    expect([dry.body.dry_run, dry.body.purged.length]).toEqual([true, 1]);
    expect((await call('POST', '/tasks/board/purge', { older_than: '1d' })).body.purged).toHaveLength(0);
    expect((await call('POST', '/tasks/board/purge')).body.purged).toHaveLength(1);
    expect((await call('GET', '/tasks/board')).body.tasks).toEqual([]);
  });

  it('answers 500 database_error naming a corrupt board file', async () => {
    const file = path.join(project.dir, '.synapse', 'task_board.db');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, 'junk '.repeat(1000));
    const r = await call('GET', '/tasks/board');
    expect(r.status).toBe(500);
    expect(r.body.error.code).toBe('database_error');
    expect(r.body.error.message).toContain(file);
  });
});

describe('memory routes', () => {
  it("save, list, search, get and delete on the original Synapse's paths and in its shapes", async () => {
    const saved = await call('POST', '/memory/save', {
      key: 'style guide',
      content: 'two-space indent, no semicolons',
      tags: ['style', 'js'],
      author: 'alice',
    });
    // The memory itself, as the original answers it (200), plus whether the key was new.
    expect(saved.status).toBe(200);
    expect(saved.body).toEqual({
      id: expect.stringMatching(/^\d+$/),
      key: 'style guide',
      content: 'two-space indent, no semicolons',
      author: 'alice',
      scope: 'project',
      working_dir: project.dir,
      tags: ['style', 'js'],
      created_at: expect.any(String),
      updated_at: expect.any(String),
      created: true,
      notify: null,
    });
    const again = await call('POST', '/memory/save', { key: 'style guide', content: 'two-space indent', tags: ['style'], author: 'bob' });
    expect([again.status, again.body.created, again.body.id]).toEqual([200, false, saved.body.id]);
    await call('POST', '/memory/save', { key: 'deps', content: 'pin exact versions for style tools', author: 'carol', tags: ['build'] });
    const keys = (r: { body: { memories: { key: string }[] } }) => r.body.memories.map((m) => m.key);
    expect(keys(await call('GET', '/memory/list'))).toEqual(['deps', 'style guide']);
    expect(keys(await call('GET', '/memory/list?tags=build,nope'))).toEqual(['deps']);
    expect(keys(await call('GET', '/memory/list?author=bob'))).toEqual(['style guide']);
    expect(keys(await call('GET', '/memory/list?limit=1'))).toEqual(['deps']);
    const search = await call('GET', '/memory/search?q=style');
    expect(keys(search)).toEqual(['style guide', 'deps']);
    expect(search.body.memories[0]).toMatchObject({ id: saved.body.id, key: 'style guide', scope: 'project', score: expect.any(Number) });
    // GET /memory/{id_or_key}: the memory itself, by key or by id.
    const byKey = await call('GET', `/memory/${encodeURIComponent('style guide')}`);
    expect(byKey.body).toMatchObject({ id: saved.body.id, key: 'style guide', content: 'two-space indent', author: 'bob' });
    expect((await call('GET', `/memory/${saved.body.id}`)).body.key).toBe('style guide');
    const deleted = await call('DELETE', '/memory/deps');
    expect(deleted.body).toMatchObject({ deleted: true, id_or_key: 'deps', memory: { key: 'deps' } });
    const gone = await call('GET', '/memory/deps');
    expect([gone.status, gone.body.error.code]).toEqual([404, 'not_found']);
    expect((await call('DELETE', `/memory/${saved.body.id}`)).body).toMatchObject({ deleted: true, id_or_key: saved.body.id });
    expect((await call('GET', '/memory/list')).body).toEqual({ memories: [] });
  });

  it('our /memory routes are the same, /memory answering 201 for a new key', async () => {
    const saved = await call('POST', '/memory', { key: 'k', content: 'v', tags: 'a,b' });
    expect([saved.status, saved.body.key, saved.body.tags, saved.body.created]).toEqual([201, 'k', ['a', 'b'], true]);
    expect((await call('POST', '/memory', { key: 'k', content: 'w' })).status).toBe(200);
    expect((await call('GET', '/memory?tag=a')).body.memories.map((m: { key: string }) => m.key)).toEqual([]);
    expect((await call('GET', '/memory')).body.memories.map((m: { content: string }) => m.content)).toEqual(['w']);
  });

  it('refuses hostile or malformed input with 400 and stores nothing', async () => {
    const bad: Array<[string, string, unknown?]> = [
      ['GET', '/memory/search'],
      ['POST', '/memory/save', { key: 'k' }],
      ['POST', '/memory/save', { key: 'k', content: 'v', tags: [{ $gt: '' }] }],
      ['POST', '/memory/save', { key: { toString: 'x' }, content: 'v' }],
      ['POST', '/memory/save', { key: '', content: 'v' }],
      ['POST', '/memory/save', { key: 'k\u0000', content: 'v' }],
      ['POST', '/memory/save', { key: 'k', content: 'v', tags: ['x'.repeat(51)] }],
      ['POST', '/memory/save', { key: 'x'.repeat(201), content: 'v' }],
      ['GET', '/memory/list?limit=0'],
      ['GET', '/memory/list?limit=abc'],
      ['GET', `/memory/list?tags=${'t,'.repeat(600)}`],
    ];
    for (const [method, url, body] of bad) {
      const r = await call(method as 'GET' | 'POST', url, body);
      expect({ url, body, status: r.status, code: r.body.error?.code }).toEqual({
        url,
        body,
        status: 400,
        code: expect.stringMatching(/^(invalid_input|usage)$/),
      });
    }
    expect((await call('GET', '/memory/list')).body).toEqual({ memories: [] });
  });

  it('notifies the other agents of the directory, not itself', async () => {
    registerAgent(project, { agent_id: 'synapse-claude-8100', name: 'me', pid: process.pid, port: 1, working_dir: project.dir });
    const r = await call('POST', '/memory', { key: 'k', content: 'v', notify: true });
    expect(r.body.notify).toEqual({ notified: [], failed: [] });
  });

  it('answers 404 when shared memory is disabled', async () => {
    await app.close();
    app = await build({ ...project.env, SYNAPSE_SHARED_MEMORY_ENABLED: 'false' });
    const r = await call('GET', '/memory/list');
    expect(r.status).toBe(404);
    expect(r.body.error.message).toContain('shared memory is disabled');
    expect(fs.existsSync(path.join(project.dir, '.synapse', 'memory.db'))).toBe(false);
  });
});
