import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AGENT_DB_MIGRATIONS } from '../../../src/store/agent-db-migrations.js';
import { openDatabase } from '../../../src/store/sqlite.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe('openDatabase', () => {
  it("bounds each connection's page cache at 512 KiB (better-sqlite3 builds SQLite with 16 MiB), read-only ones too", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sqlite-open-'));
    dirs.push(dir);
    const file = path.join(dir, 'agent.db');
    const db = openDatabase(file, AGENT_DB_MIGRATIONS);
    const reader = openDatabase(file, [], { readonly: true });
    try {
      expect(db.pragma('cache_size', { simple: true })).toBe(-512);
      expect(reader.pragma('cache_size', { simple: true })).toBe(-512);
    } finally {
      reader.close();
      db.close();
    }
  });
});
