import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { freshDatabase, postgresUnavailable } from '../../support/pg-db.js';

const unavailable = postgresUnavailable();

describe('the test run’s PostgreSQL server', () => {
  it.skipIf(unavailable !== '')(
    `answers on loopback with password auth, one fresh database per caller${unavailable ? ` (SKIPPED: ${unavailable})` : ''}`,
    async () => {
      const db = await freshDatabase();
      try {
        const url = new URL(db.url);
        expect(url.hostname).toBe('127.0.0.1');
        expect(url.password).not.toBe('');
        const client = new pg.Client({ connectionString: db.url });
        await client.connect();
        try {
          const r = await client.query<{ db: string; v: string }>(`SELECT current_database() AS db, current_setting('server_version_num') AS v`);
          expect(r.rows[0]?.db).toBe(url.pathname.slice(1));
          expect(Number(r.rows[0]?.v)).toBeGreaterThanOrEqual(120000);
        } finally {
          await client.end();
        }
        const wrong = new URL(db.url);
        wrong.password = 'wrong';
        const bad = new pg.Client({ connectionString: wrong.toString() });
        await expect(bad.connect()).rejects.toThrow(/password authentication failed/);
      } finally {
        await db.drop();
      }
    },
  );
});
