import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentStatusModel } from '../../../src/runtime/agent-status.js';
import { startLockSignal } from '../../../src/runtime/lock-signal.js';
import { openFileSafety } from '../../../src/store/file-safety-store.js';
import { freshDatabase, postgresUnavailable } from '../../support/pg-db.js';

/** The agent's lock signal with a PostgreSQL store (issue 22): asynchronous reads, fail closed until the first answer. */

const unavailable = postgresUnavailable();

async function until(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe.skipIf(unavailable !== '')(`the agent's lock signal on PostgreSQL${unavailable ? ` (SKIPPED: ${unavailable})` : ''}`, () => {
  let db: { url: string; drop: () => Promise<void> };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lock-signal-pg-'));
  beforeAll(async () => {
    db = await freshDatabase('synapse_lock_signal');
  });
  afterAll(async () => {
    await db?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('counts the locks the agent holds in the database; held() is true until the first read answers', async () => {
    const env = { SYNAPSE_STORE_URL: db.url };
    const seen: number[] = [];
    const status = { setLocksHeld: (n: number) => seen.push(n) } as unknown as AgentStatusModel;
    const store = await openFileSafety(dir, { env });
    const signal = startLockSignal(dir, 'agent-1', env, status);
    try {
      expect(signal.held()).toBe(true);
      await until(() => seen.length > 0, 'the first read');
      expect(seen.at(-1)).toBe(0);
      expect(signal.held()).toBe(false);
      await store.lock({ path: 'a.ts', agent: 'agent-1', pid: null, ttlMs: 60_000 });
      await store.lock({ path: 'b.ts', agent: 'someone-else', pid: null, ttlMs: 60_000 });
      signal.refresh();
      await until(() => seen.at(-1) === 1, 'the count of 1');
      expect(signal.held()).toBe(true);
      await store.unlock('a.ts', 'agent-1');
      signal.refresh();
      await until(() => seen.at(-1) === 0, 'the count back to 0');
      expect(signal.held()).toBe(false);
    } finally {
      signal.stop();
      await store.close();
    }
  });
});
