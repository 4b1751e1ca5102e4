import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { cleanupAll, getJson, runCli, startHeadless, tempHome, waitFor } from '../../support/synapse.js';

/** Issue 20 §1: the original suppresses READY while the agent holds file-safety locks. */
const t = tempHome();
const project = fs.mkdtempSync(path.join(os.tmpdir(), 'synapse-compound-'));
afterEach(cleanupAll);
afterAll(() => {
  t.cleanup();
  fs.rmSync(project, { recursive: true, force: true });
});

describe('compound status', () => {
  it('an idle agent holding a file lock is PROCESSING (holds 1 file lock) until it unlocks', async () => {
    const a = await startHeadless('echo', { env: t.env, cwd: project });
    await waitFor(async () => (await getJson(`${a.endpoint}/status`)).body.status === 'READY', 10_000, 'READY');
    expect((await getJson(`${a.endpoint}/status`)).body.status_reason).toBeNull();

    const locked = await runCli(['file-safety', 'lock', 'src/a.ts', a.agentId, '--intent', 'refactor'], { env: t.env, cwd: project });
    expect(locked.code, locked.stderr).toBe(0);
    await waitFor(async () => (await getJson(`${a.endpoint}/status`)).body.status === 'PROCESSING', 10_000, 'PROCESSING while the lock is held');
    const live = (await getJson(`${a.endpoint}/status`)).body;
    expect(live).toMatchObject({ status: 'PROCESSING', status_reason: 'holds 1 file lock', ready: false });

    const status = await runCli(['status', a.agentId], { env: t.env, cwd: project });
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout.split('\n')[0]).toContain('PROCESSING (holds 1 file lock)');
    expect(status.stdout).toContain('src/a.ts (refactor)');

    const unlocked = await runCli(['file-safety', 'unlock', 'src/a.ts', a.agentId], { env: t.env, cwd: project });
    expect(unlocked.code, unlocked.stderr).toBe(0);
    await waitFor(async () => (await getJson(`${a.endpoint}/status`)).body.status === 'READY', 10_000, 'READY after unlock');
    expect((await getJson(`${a.endpoint}/status`)).body.status_reason).toBeNull();
  });
});
