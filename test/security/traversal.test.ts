import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupAll, getJson, postJson, runCli, startHeadless, tempHome, waitForTask, type AgentHandle } from '../support/synapse.js';

/**
 * Path traversal through every input a peer controls that names a file: a task id (the long
 * message's file is named after it), attachment names and URIs, external agent aliases, ids in
 * the A2A and Synapse routes. A victim file sits where a traversal would land; it must survive,
 * and nothing may be written outside the agent's own directories.
 */
const t = tempHome();
let a: AgentHandle;
let victim: string;
const TRAVERSALS = ['../../victim', '..%2F..%2Fvictim', '%2e%2e%2f%2e%2e%2fvictim', '....//....//victim', '/etc/passwd', '..\\..\\victim', 'x/../../../victim'];

beforeAll(async () => {
  a = await startHeadless('echo', { env: { ...t.env, SYNAPSE_LONG_MESSAGE_THRESHOLD: '20' } });
  victim = path.join(t.home, 'victim.json');
  fs.writeFileSync(victim, '{"keep": true}');
  fs.writeFileSync(path.join(t.home, 'victim'), 'keep');
});
afterAll(async () => {
  await cleanupAll();
  t.cleanup();
});

/** Every file under HOME, relative, except the agent's own busy directories. */
function filesUnder(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true }) as string[]).filter((f) => fs.statSync(path.join(dir, f)).isFile()).sort();
}

describe('path traversal', () => {
  it('a client-chosen task id must be a UUID: traversal in it is refused before any file is named after it', async () => {
    for (const id of TRAVERSALS) {
      const res = await postJson(`${a.endpoint}/tasks/send`, {
        task_id: id,
        message: { role: 'user', parts: [{ type: 'text', text: 'a message long enough to go into a file of its own' }] },
      });
      expect(res.status, id).toBe(400);
      expect(res.body.error.code).toBe('invalid_input');
    }
  });

  it('attachment names and URIs are only shown, never opened or written: the long-message file is <task id>.txt in the message dir', async () => {
    const before = filesUnder(t.home).filter((f) => !f.startsWith('.synapse/') && !f.startsWith('messages/'));
    const res = await postJson(`${a.endpoint}/tasks/send`, {
      message: {
        role: 'user',
        parts: [
          { type: 'text', text: 'see the attachments, this text is long enough for a file' },
          ...TRAVERSALS.map((name) => ({ type: 'file', file: { name, uri: `file://${victim}`, bytes: Buffer.from('overwrite').toString('base64') } })),
        ],
      },
    });
    expect(res.status).toBe(202);
    const task = await waitForTask(a.endpoint, res.body.task.id);
    expect(task.status).toBe('completed');
    const messageFiles = fs.readdirSync(t.env.SYNAPSE_MESSAGE_DIR!);
    expect(messageFiles).toContain(`${res.body.task.id}.txt`);
    expect(messageFiles.every((f) => /^[0-9a-f-]{36}\.txt$/.test(f))).toBe(true);
    expect(fs.readFileSync(victim, 'utf8')).toBe('{"keep": true}');
    expect(fs.readFileSync(path.join(t.home, 'victim'), 'utf8')).toBe('keep');
    const after = filesUnder(t.home).filter((f) => !f.startsWith('.synapse/') && !f.startsWith('messages/'));
    // Only the agent's registry and reply files may change; nothing new elsewhere.
    expect(after.filter((f) => !before.includes(f) && !f.startsWith('.a2a/'))).toEqual([]);
  });

  it('external agent aliases: traversal is refused or not found, and the file it aims at survives', async () => {
    const registryFile = `../registry/${a.agentId}`;
    for (const alias of [...TRAVERSALS, registryFile, '../../victim.json']) {
      const enc = encodeURIComponent(alias);
      const got = await getJson(`${a.endpoint}/external/agents/${enc}`);
      expect([400, 404], `GET ${alias}`).toContain(got.status);
      const del = await fetch(`${a.endpoint}/external/agents/${enc}`, { method: 'DELETE' });
      expect([400, 404], `DELETE ${alias}`).toContain(del.status);
      const send = await postJson(`${a.endpoint}/external/agents/${enc}/send`, { message: 'hi' });
      expect([400, 404], `send ${alias}`).toContain(send.status);
    }
    expect(fs.existsSync(path.join(t.env.SYNAPSE_REGISTRY_DIR!, `${a.agentId}.json`))).toBe(true);
    expect(fs.readFileSync(victim, 'utf8')).toBe('{"keep": true}');
  });

  it('task, memory, board and webhook ids with traversal are plain ids: not found, nothing touched', async () => {
    for (const id of TRAVERSALS) {
      const enc = encodeURIComponent(id);
      for (const url of [`/tasks/${enc}`, `/a2a/rest/v1/tasks/${enc}`, `/memory/${enc}`, `/tasks/board/${enc}`]) {
        const res = await fetch(`${a.endpoint}${url}`);
        expect([400, 404], `GET ${url}`).toContain(res.status);
      }
      const del = await fetch(`${a.endpoint}/webhooks/${enc}`, { method: 'DELETE' });
      expect([400, 404], `DELETE /webhooks/${id}`).toContain(del.status);
    }
    expect(fs.readFileSync(victim, 'utf8')).toBe('{"keep": true}');
  });

  it('a file lock on a path outside the project is refused: no row, no file opened or created', async () => {
    const project = path.join(t.home, 'project');
    fs.mkdirSync(project, { recursive: true });
    fs.symlinkSync(t.home, path.join(project, 'escape'));
    for (const target of ['../outside/new-file.txt', path.join(t.home, 'victim'), '/etc/passwd', 'escape/victim', 'src/../../outside/x.txt']) {
      const r = await runCli(['file-safety', 'lock', target, 'someone', '--json', '--pid', '0'], { env: t.env, cwd: project });
      expect(r.code, target).toBe(1);
      expect(r.stderr).toContain('is not a file of the project');
    }
    const locks = await runCli(['file-safety', 'locks', '--json'], { env: t.env, cwd: project });
    expect(locks.code, locks.stderr).toBe(0);
    expect(JSON.parse(locks.stdout)).toEqual([]);
    expect(fs.existsSync(path.join(t.home, 'outside'))).toBe(false);
    // A file of the project is locked as before, the agent's own file safety unchanged.
    const inside = await runCli(['file-safety', 'lock', 'src/app.ts', 'someone', '--json', '--pid', '0'], { env: t.env, cwd: project });
    expect(inside.code, inside.stderr).toBe(0);
    expect(JSON.parse(inside.stdout).lock.path).toBe(path.join(fs.realpathSync(project), 'src', 'app.ts'));
  });
});
