import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FileSafetyStore } from '../../../src/store/file-safety.js';
import { clockFrom } from '../../../src/clock.js';
import { startFileSafetyRetention } from '../../../src/runtime/file-safety-retention.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe('file-safety retention (SYNAPSE_FILE_SAFETY_RETENTION_DAYS)', () => {
  it('purges change records older than the retention after start, keeps newer ones, and logs what it did', async () => {
    const project = fs.mkdtempSync(path.join(os.tmpdir(), 'retention-'));
    dirs.push(project);
    const env = { HOME: project };
    const day = 86_400_000;
    let now = Date.now() - 40 * day;
    const old = FileSafetyStore.forProject(project, env, { clock: clockFrom(() => now) });
    old.record({ path: 'src/a.ts', agent: 'synapse-echo-8190', type: 'modify' });
    now = Date.now() - 10 * day;
    old.record({ path: 'src/b.ts', agent: 'synapse-echo-8190', type: 'modify' });
    old.close();

    const lines: string[] = [];
    const stop = startFileSafetyRetention(project, env, 30, (l) => lines.push(l), 0);
    try {
      await expect.poll(() => lines.length).toBe(1);
    } finally {
      stop();
    }
    expect(lines[0]).toBe('file-safety retention (30 d): deleted 1 change record(s), removed 0 stale lock(s)');
    const after = FileSafetyStore.forProject(project, env);
    try {
      expect(after.recent().map((c) => c.path)).toEqual([path.join(project, 'src/b.ts')].map((p) => after.normalize(p)));
    } finally {
      after.close();
    }
  });

  it('creates nothing in a project that never used file safety', async () => {
    const project = fs.mkdtempSync(path.join(os.tmpdir(), 'retention-'));
    dirs.push(project);
    const lines: string[] = [];
    const stop = startFileSafetyRetention(project, { HOME: project }, 30, (l) => lines.push(l), 0);
    await new Promise((r) => setTimeout(r, 50));
    stop();
    expect(lines).toEqual([]);
    expect(fs.readdirSync(project)).toEqual([]);
  });
});
