// PostgreSQL helpers the store benchmarks share (bench/store.mjs, bench/list.mjs).
import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** A fresh database named `<prefix>_<random>` on the server at `url`; `drop` removes it. */
export async function freshDatabase(url, prefix) {
  const name = `${prefix}_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const u = new URL(url);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}
