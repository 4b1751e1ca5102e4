import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, postgresUnavailable } from '../../support/pg-db.js';
import { cleanupAll, getJson, postJson, runCli, startHeadless, tempHome, textMessage, waitFor, waitForTask } from '../../support/synapse.js';

/**
 * An agent's history with a PostgreSQL store (issue 22): its finished tasks go to the team's
 * database, which another "host" (its own HOME) reads; with the database unreachable, tasks
 * still finish, /status says what waits, and the shutdown names what could not be written.
 */

const unavailable = postgresUnavailable();
const homes: Array<ReturnType<typeof tempHome>> = [];
afterEach(async () => {
  await cleanupAll();
  for (const h of homes.splice(0)) h.cleanup();
});

function home(): { env: NodeJS.ProcessEnv; project: string; home: string } {
  const t = tempHome();
  homes.push(t);
  const project = path.join(t.home, 'project');
  fs.mkdirSync(project, { recursive: true });
  return { env: { ...t.env, SYNAPSE_HISTORY_ENABLED: 'true' }, project, home: t.home };
}

async function send(endpoint: string, text: string): Promise<any> {
  const res = await postJson(`${endpoint}/tasks/send`, textMessage(text));
  expect(res.status).toBe(202);
  return waitForTask(endpoint, res.body.task.id);
}

describe.skipIf(unavailable !== '')(`an agent's history in PostgreSQL${unavailable ? ` (SKIPPED: ${unavailable})` : ''}`, () => {
  let db: { url: string; drop: () => Promise<void> };
  beforeAll(async () => {
    db = await freshDatabase('synapse_history_agent');
  });
  afterAll(async () => db?.drop());

  it('records finished tasks in the database, where another host reads them with this host name; no local file', async () => {
    const a = home();
    const b = home();
    // The host a row names is SYNAPSE_HOST_NAME when set, as in the registry table and on locks.
    const agent = await startHeadless('echo', {
      env: { ...a.env, SYNAPSE_STORE_URL: db.url, SYNAPSE_HOST_NAME: 'recorder-host' },
      cwd: a.project,
      args: ['--name', 'recorder'],
    });
    const done = await send(agent.endpoint, 'remember the blue widget');
    expect(done.status).toBe('completed');
    const entries = await waitFor(async () => {
      const r = await runCli(['history', 'list', '--json'], { env: { ...b.env, SYNAPSE_STORE_URL: db.url }, cwd: b.project });
      expect(r.code, r.stderr).toBe(0);
      const list = JSON.parse(r.stdout) as Array<{ task_id: string; host: string; agent_name: string; input: string }>;
      return list.some((e) => e.task_id === done.id) ? list : null;
    }, 15_000);
    expect(entries.find((e) => e.task_id === done.id)).toMatchObject({ host: 'recorder-host', agent_name: 'recorder', input: 'remember the blue widget' });
    const status = await getJson(`${agent.endpoint}/status`);
    expect(status.body.history).toMatchObject({ ok: true, backlog: 0 });
    await agent.stop();
    expect(fs.existsSync(path.join(a.home, '.synapse', 'history', 'history.db'))).toBe(false);
  });

  it('with the database unreachable the task still finishes; /status shows the backlog; the shutdown names what was not written', async () => {
    const a = home();
    const dead = 'postgres://synapse:hunter2-secret@127.0.0.1:1/team';
    const agent = await startHeadless('echo', { env: { ...a.env, SYNAPSE_STORE_URL: dead }, cwd: a.project, args: ['--name', 'offline'] });
    const done = await send(agent.endpoint, 'this cannot be recorded');
    expect(done.status).toBe('completed');
    const health = await waitFor(async () => {
      const s = await getJson(`${agent.endpoint}/status`);
      return s.body.history?.ok === false ? s.body.history : null;
    }, 15_000);
    expect(health).toMatchObject({ ok: false, backlog: 1 });
    expect(health.error).toMatch(/127\.0\.0\.1:1/);
    expect(JSON.stringify(health)).not.toContain('hunter2-secret');
    await agent.stop();
    expect(agent.output()).toMatch(/history: 1 finished task\(s\) not recorded in postgres:\/\/synapse:\*+@127\.0\.0\.1:1\/team/);
    expect(agent.output()).not.toContain('hunter2-secret');
    expect(fs.existsSync(path.join(a.home, '.synapse', 'history', 'history.db'))).toBe(false);
  });
});
