import { SynapseError } from '../errors.js';
import { systemClock, iso, type Clock } from '../clock.js';
import type { Redactor } from '../redact.js';
import { PgDb, type PgMigration, type Query, migrateComponent } from './pg-db.js';
import type { MemoryStore } from './memory-api.js';
import type { Memory, MemoryHit, MemoryStats } from './memory-schema.js';
import { normalizeTags, prepareSave, searchWords, validateKey } from './memory-rules.js';

/**
 * Shared memory's table in PostgreSQL: the SQLite columns (timestamps as ISO text, tags as a JSON
 * array), plus a generated `tsvector` (key weighted A, tags B, content C) with a GIN index for
 * search. The 'simple' configuration, like SQLite's unicode61 tokenizer, does no stemming.
 */
export const MEMORY_PG_MIGRATIONS: PgMigration[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE memory_notes (
        id         INTEGER GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        key        TEXT NOT NULL UNIQUE,
        content    TEXT NOT NULL,
        tags       JSONB NOT NULL DEFAULT '[]',
        author     TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        search     TSVECTOR GENERATED ALWAYS AS (
                     setweight(to_tsvector('simple', key), 'A') ||
                     setweight(to_tsvector('simple', tags::text), 'B') ||
                     setweight(to_tsvector('simple', content), 'C')) STORED
      );
      CREATE INDEX memory_notes_by_author ON memory_notes(author);
      CREATE INDEX memory_notes_by_updated ON memory_notes(updated_at);
      CREATE INDEX memory_notes_search ON memory_notes USING GIN (search);
    `,
  },
];

interface Row {
  id: number;
  key: string;
  content: string;
  tags: unknown;
  author: string | null;
  created_at: string;
  updated_at: string;
}

const COLUMNS = `id, key, content, tags, author, created_at, updated_at`;

function toMemory(row: Row): Memory {
  const tags = Array.isArray(row.tags) ? row.tags.filter((t): t is string => typeof t === 'string') : [];
  return { id: row.id, key: row.key, content: row.content, tags, author: row.author, created_at: row.created_at, updated_at: row.updated_at };
}

export class PgMemory implements MemoryStore {
  readonly backend = 'postgres' as const;

  private constructor(
    private readonly db: PgDb,
    private readonly redact: Redactor,
    private readonly clock: Clock,
  ) {}

  static async open(url: string, options: { redact: Redactor; clock?: Clock; retryForMs?: number }): Promise<PgMemory> {
    const db = new PgDb(url, { retryForMs: options.retryForMs });
    try {
      await db.migrate('memory', MEMORY_PG_MIGRATIONS);
    } catch (err) {
      await db.close();
      throw err;
    }
    return new PgMemory(db, options.redact, options.clock ?? systemClock);
  }

  async close(): Promise<void> {
    await this.db.close();
  }

  /** One upsert decides: two agents saving one key leave exactly one note (the later one). */
  async save(input: { key: string; content: string; tags?: string[]; author?: string | null }): Promise<{ memory: Memory; created: boolean }> {
    const { key, content, tags, author } = prepareSave(input, this.redact);
    const now = iso(this.clock.now());
    const [row] = await this.db.tx(
      (q) =>
        q<Row & { created: boolean }>(
          `INSERT INTO memory_notes (key, content, tags, author, created_at, updated_at) VALUES ($1, $2, $3::jsonb, $4, $5, $5)
           ON CONFLICT (key) DO UPDATE SET content = EXCLUDED.content, tags = EXCLUDED.tags, author = EXCLUDED.author, updated_at = EXCLUDED.updated_at
           RETURNING ${COLUMNS}, (xmax = 0) AS created`,
          [key, content, JSON.stringify(tags), author, now],
        ),
      { autocommit: true },
    );
    return { memory: toMemory(row!), created: row!.created };
  }

  async get(key: string): Promise<Memory> {
    const k = validateKey(key);
    return this.db.tx((q) => load(q, k), { readOnly: true, plain: true });
  }

  async keyOf(idOrKey: string): Promise<string> {
    const key = validateKey(idOrKey);
    if (!/^\d+$/.test(key) || Number(key) > 2_147_483_647) return key;
    const rows = await this.db.query<{ key: string; exact: boolean }>(
      `SELECT key, key = $1 AS exact FROM memory_notes WHERE key = $1 OR id = $2::int ORDER BY (key = $1) DESC LIMIT 1`,
      [key, key],
    );
    return rows[0]?.key ?? key;
  }

  async list(filter: { tag?: string; tags?: string[]; author?: string; limit?: number } = {}): Promise<Memory[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    const param = (v: unknown) => {
      params.push(v);
      return `$${params.length}`;
    };
    if (filter.tag !== undefined) where.push(`tags ? ${param(filter.tag.trim().toLowerCase())}`);
    const anyOf = normalizeTags(filter.tags ?? []);
    if (anyOf.length > 0) where.push(`tags ?| ${param(anyOf)}::text[]`);
    if (filter.author !== undefined) where.push(`author = ${param(filter.author)}`);
    const rows = await this.db.query<Row>(
      `SELECT ${COLUMNS} FROM memory_notes ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY updated_at DESC, id DESC LIMIT ${param(filter.limit ?? 1000)}`,
      params,
    );
    return rows.map(toMemory);
  }

  /** Any word matches, also as a prefix; notes matching more words, and in the key or tags, rank higher. */
  async search(query: string, options: { limit?: number } = {}): Promise<MemoryHit[]> {
    // Words are letters, digits and '_' only, so the tsquery built from them cannot be malformed.
    const tsquery = searchWords(query)
      .map((w) => `${w.toLowerCase()}:*`)
      .join(' | ');
    const rows = await this.db.query<Row & { rank: number }>(
      `SELECT ${COLUMNS}, ts_rank(search, q) AS rank FROM memory_notes, to_tsquery('simple', $1) q
        WHERE search @@ q ORDER BY rank DESC, updated_at DESC LIMIT $2`,
      [tsquery, options.limit ?? 20],
    );
    return rows.map((r) => ({ ...toMemory(r), score: Number(r.rank) }));
  }

  async delete(key: string): Promise<Memory> {
    const k = validateKey(key);
    const [row] = await this.db.tx((q) => q<Row>(`DELETE FROM memory_notes WHERE key = $1 RETURNING ${COLUMNS}`, [k]), { autocommit: true });
    if (row) return toMemory(row);
    return this.db.tx((q) => load(q, k), { readOnly: true, plain: true });
  }

  async stats(): Promise<MemoryStats> {
    return this.db.tx(
      async (q) => {
        const [totals] = await q<{ n: number; bytes: number; oldest: string | null; newest: string | null }>(
          `SELECT COUNT(*)::int AS n, COALESCE(SUM(octet_length(content)), 0)::int AS bytes, MIN(created_at) AS oldest, MAX(updated_at) AS newest FROM memory_notes`,
        );
        const authors: Record<string, number> = {};
        for (const r of await q<{ a: string; n: number }>(
          `SELECT COALESCE(author, '(unknown)') AS a, COUNT(*)::int AS n FROM memory_notes GROUP BY 1 ORDER BY 2 DESC, COALESCE(author, '(unknown)') COLLATE "C"`,
        ))
          authors[r.a] = r.n;
        const tags: Record<string, number> = {};
        for (const r of await q<{ t: string; n: number }>(
          `SELECT j.t, COUNT(*)::int AS n FROM memory_notes, jsonb_array_elements_text(memory_notes.tags) AS j(t) GROUP BY j.t ORDER BY n DESC, j.t COLLATE "C"`,
        ))
          tags[r.t] = r.n;
        return { count: totals?.n ?? 0, total_bytes: totals?.bytes ?? 0, authors, tags, oldest: totals?.oldest ?? null, newest: totals?.newest ?? null };
      },
      { readOnly: true },
    );
  }
}

/** The note under exactly this key; the not-found error lists similar keys. */
async function load(q: Query, key: string): Promise<Memory> {
  const [row] = await q<Row>(`SELECT ${COLUMNS} FROM memory_notes WHERE key = $1`, [key]);
  if (row) return toMemory(row);
  const similar = (
    await q<{ key: string }>(`SELECT key FROM memory_notes WHERE strpos(lower(key), lower($1)) > 0 ORDER BY updated_at DESC LIMIT 10`, [key])
  ).map((r) => r.key);
  const hint = similar.length > 0 ? `; similar keys: ${similar.join(', ')}` : '; see synapse memory list';
  throw new SynapseError('not_found', `no memory with key '${key}'${hint}`, { key, similar });
}

/** `synapse store migrate`: brings shared memory's table to the newest version. */
export function pgMemoryMigrate(url: string, options: { retryForMs?: number } = {}): Promise<{ from: number; to: number }> {
  return migrateComponent(url, 'memory', MEMORY_PG_MIGRATIONS, options);
}
