import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { cleanupAll, freePort, getJson, runCli, startHeadless, tempHome, waitFor } from '../../support/synapse.js';

/** Whether something still listens on the port. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = net.connect({ port, host: '127.0.0.1' });
    sock.once('connect', () => {
      sock.destroy();
      resolve(true);
    });
    sock.once('error', () => resolve(false));
  });
}

describe('an agent whose start goes wrong says so and does not hang', () => {
  const t = tempHome();
  afterEach(cleanupAll);
  afterAll(() => t.cleanup());

  it('a corrupt task database stops the start with an error, and the claimed port is released', async () => {
    const port = await freePort();
    const stateDir = path.join(t.home, '.synapse', 'agents');
    fs.mkdirSync(stateDir, { recursive: true });
    fs.writeFileSync(path.join(stateDir, `synapse-echo-${port}.db`), 'this is not a database '.repeat(200));
    const r = await runCli(['echo', '--headless', '--port', String(port)], { env: t.env, timeoutMs: 15_000 });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/not a database/);
    expect(await listening(port)).toBe(false);
    const registry = path.join(t.home, '.a2a', 'registry');
    expect(fs.existsSync(registry) ? fs.readdirSync(registry).filter((n) => n.endsWith('.json')) : []).toEqual([]);
  });

  it('an unreadable .synapse/default.md is logged and the agent takes messages without it', async () => {
    const project = fs.mkdtempSync(path.join(t.home, 'project-'));
    // A directory where the template should be: it exists but cannot be read as a file.
    fs.mkdirSync(path.join(project, '.synapse', 'default.md'), { recursive: true });
    const a = await startHeadless('echo', { env: t.env, cwd: project });
    await waitFor(async () => (await getJson(`${a.endpoint}/status`)).body.ready_for_messages === true, 10_000, 'ready for messages');
    const events = a
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { level: string; msg: string });
    expect(events).toContainEqual(
      expect.objectContaining({
        level: 'error',
        msg: expect.stringContaining(`cannot read the start-up instruction ${path.join(project, '.synapse', 'default.md')}`) as string,
      }),
    );
    expect(events).toContainEqual(expect.objectContaining({ msg: 'accepting messages (the start-up instruction could not be read)' }));
    const { body } = await getJson(`${a.endpoint}/tasks?limit=10`);
    expect((body as Array<{ metadata: { kind?: string } }>).filter((x) => x.metadata.kind === 'bootstrap')).toEqual([]);
  });
});
