import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOT } from './harness.js';

const dirs: string[] = [];

afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function runBench(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'bench', 'board-race.mjs'), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('claims and locks across processes', () => {
  it('8 processes racing for 500 tasks and 50 locks: every one has exactly one winner', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'synapse-race-test-'));
    dirs.push(dir);
    const r = await runBench(['--tasks', '500', '--procs', '8', '--locks', '50', '--lock-rounds', '3', '--dir', dir, '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.board).toMatchObject({ ok: true, tasks: 500, processes: 8, attempts: 4000, duplicates: 0, lost: 0, mismatched: 0 });
    expect(out.locks).toMatchObject({ ok: true, failed_rounds: 0, attempts: 8 * 50 * 3 });

    // Check the file itself, independently of what the bench reported.
    const db = new Database(path.join(dir, '.synapse', 'task_board.db'), { readonly: true });
    try {
      const rows = db.prepare(`SELECT id, status, claimed_by FROM tasks`).all() as { id: string; status: string; claimed_by: string | null }[];
      expect(rows).toHaveLength(500);
      expect(rows.filter((t) => t.status !== 'in_progress' || t.claimed_by === null)).toEqual([]);
      const winners = out.board.winners as Record<string, string>;
      expect(Object.keys(winners)).toHaveLength(500);
      expect(rows.filter((t) => winners[t.id] !== t.claimed_by)).toEqual([]);
      const perProcess = Object.values(out.board.wins_per_process as Record<string, number>).reduce((a, b) => a + b, 0);
      expect(perProcess).toBe(500);
    } finally {
      db.close();
    }
  }, 60_000);
});
