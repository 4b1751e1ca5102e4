import { spawn } from 'node:child_process';
import path from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../support/synapse.js';
import { freshDatabase, postgresUnavailable } from '../../support/pg-db.js';

const unavailable = postgresUnavailable();

function runBench(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'bench', 'store.mjs'), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe.skipIf(unavailable !== '')(`claims across processes on PostgreSQL${unavailable ? ` (SKIPPED: ${unavailable})` : ''}`, () => {
  it('8 processes racing for 300 tasks through one database: every task has exactly one winner, zero double claims', async () => {
    const db = await freshDatabase('synapse_race');
    try {
      const r = await runBench(['--backend', 'postgres', '--url', db.url, '--exact', '--tasks', '300', '--procs', '8', '--json']);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const [out] = JSON.parse(r.stdout).results;
      expect(out).toMatchObject({ backend: 'postgres', ok: true, tasks: 300, processes: 8, attempts: 2400, duplicates: 0, lost: 0, mismatched: 0 });

      // The database itself, independently of what the bench reported.
      const c = new pg.Client({ connectionString: db.url });
      await c.connect();
      try {
        const rows = (await c.query<{ id: string; status: string; claimed_by: string | null }>(`SELECT id, status, claimed_by FROM board_tasks`)).rows;
        expect(rows).toHaveLength(300);
        expect(rows.filter((t) => t.status !== 'in_progress' || t.claimed_by === null)).toEqual([]);
        const winners = out.winners as Record<string, string>;
        expect(Object.keys(winners)).toHaveLength(300);
        expect(rows.filter((t) => winners[t.id] !== t.claimed_by)).toEqual([]);
        const perProcess = Object.values(out.wins_per_process as Record<string, number>).reduce((a, b) => a + b, 0);
        expect(perProcess).toBe(300);
      } finally {
        await c.end();
      }
    } finally {
      await db.drop();
    }
  }, 120_000);
});
