import { secretRedactor, type Redactor } from '../redact.js';
import { SynapseError } from '../errors.js';
import type { Sql } from './store-db.js';
import { StoreDb } from './store-db.js';
import { systemClock, iso, type Clock } from '../clock.js';
import { memoryDbPath } from './settings.js';
import type { Env } from '../config/paths.js';
import { normalizeTags, prepareSave, validateKey } from './memory-rules.js';
import { MEMORY_MIGRATIONS, type Memory, type MemoryHit, type MemoryRow, type MemoryStats } from './memory-schema.js';

export * from './memory-schema.js';
export { normalizeTags } from './memory-rules.js';
export { memoryNotice } from './memory-notice.js';

/** BM25 column weights: a hit in the key says most, then tags, then the body. */
const RANK = `bm25(memories_fts, 10.0, 1.0, 5.0)`;

/**
 * The project's shared memory (`.synapse/memory.db`): notes keyed by a unique key, with tags,
 * searchable with FTS5. Saves are upserts under `BEGIN IMMEDIATE`, so two agents saving the
 * same key leave exactly one note (the later one).
 */
export class SharedMemory {
  readonly file: string;
  private readonly store: StoreDb;
  private readonly clock: Clock;

  /** Credentials are redacted before a note is written (issue 21 §4). */
  private readonly redact: Redactor;

  constructor(file: string, options: { clock?: Clock; redact?: Redactor } = {}) {
    this.file = file;
    this.clock = options.clock ?? systemClock;
    this.redact = options.redact ?? secretRedactor({});
    this.store = new StoreDb(file, MEMORY_MIGRATIONS);
  }

  static forProject(projectDir: string, options: { clock?: Clock; redact?: Redactor; env?: Env } = {}): SharedMemory {
    return new SharedMemory(memoryDbPath(projectDir, options.env), options);
  }

  close(): void {
    this.store.close();
  }

  schemaVersion(): number {
    return this.store.schemaVersion();
  }

  /** Creates or replaces the note under `key`; `created` tells which. */
  save(input: { key: string; content: string; tags?: string[]; author?: string | null }): { memory: Memory; created: boolean } {
    const { key, content, tags, author } = prepareSave(input, this.redact);
    return this.store.write((db) => {
      const existed = db.prepare(`SELECT 1 FROM memories WHERE key = ?`).get(key) !== undefined;
      const now = iso(this.clock.now());
      db.prepare(
        `INSERT INTO memories (key, content, tags, author, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT(key) DO UPDATE SET content = excluded.content, tags = excluded.tags, author = excluded.author, updated_at = excluded.updated_at`,
      ).run(key, content, JSON.stringify(tags), author, now, now);
      return { memory: this.load(db, key), created: !existed };
    });
  }

  /** The note under exactly this key; the not-found error lists similar keys. */
  get(key: string): Memory {
    return this.store.run((db) => this.load(db, validateKey(key)));
  }

  /**
   * The key of the note named by key or, failing that, by its numeric id (the original's
   * routes take either); the not-found error is the key's.
   */
  keyOf(idOrKey: string): string {
    return this.store.run((db) => {
      const key = validateKey(idOrKey);
      if (db.prepare(`SELECT 1 FROM memories WHERE key = ?`).get(key) !== undefined || !/^\d+$/.test(key)) return key;
      const row = db.prepare(`SELECT key FROM memories WHERE id = ?`).get(Number(key)) as { key: string } | undefined;
      return row?.key ?? key;
    });
  }

  /** Newest first; `tag` and `tags` (any of them) filter by tag. */
  list(filter: { tag?: string; tags?: string[]; author?: string; limit?: number } = {}): Memory[] {
    return this.store.run((db) => {
      const where: string[] = [];
      const params: unknown[] = [];
      if (filter.tag !== undefined) {
        where.push(`EXISTS (SELECT 1 FROM json_each(memories.tags) WHERE value = ?)`);
        params.push(filter.tag.trim().toLowerCase());
      }
      const anyOf = normalizeTags(filter.tags ?? []);
      if (anyOf.length > 0) {
        where.push(`EXISTS (SELECT 1 FROM json_each(memories.tags) WHERE value IN (${anyOf.map(() => '?').join(', ')}))`);
        params.push(...anyOf);
      }
      if (filter.author !== undefined) {
        where.push(`author = ?`);
        params.push(filter.author);
      }
      params.push(filter.limit ?? 1000);
      const rows = db
        .prepare(`SELECT * FROM memories ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY updated_at DESC, id DESC LIMIT ?`)
        .all(...params) as MemoryRow[];
      return rows.map(toMemory);
    });
  }

  /**
   * Full-text search over key, content and tags, best match first. Each word of the query
   * also matches as a prefix, and any word may match (BM25 ranks notes that match more
   * words, and match them in the key or tags, higher). The query is reduced to plain words,
   * so FTS5 operators in user text cannot cause syntax errors.
   */
  search(query: string, options: { limit?: number } = {}): MemoryHit[] {
    const words = query.match(/[\p{L}\p{N}_]+/gu) ?? [];
    if (words.length === 0) throw new SynapseError('usage', 'search query needs at least one word');
    const match = words.map((w) => `"${w}"*`).join(' OR ');
    return this.store.run((db) => {
      const rows = db
        .prepare(
          `SELECT m.*, ${RANK} AS rank FROM memories_fts JOIN memories m ON m.id = memories_fts.rowid
           WHERE memories_fts MATCH ? ORDER BY rank, m.updated_at DESC LIMIT ?`,
        )
        .all(match, options.limit ?? 20) as (MemoryRow & { rank: number })[];
      return rows.map((r) => ({ ...toMemory(r), score: -r.rank }));
    });
  }

  delete(key: string): Memory {
    const k = validateKey(key);
    return this.store.write((db) => {
      const memory = this.load(db, k);
      db.prepare(`DELETE FROM memories WHERE key = ?`).run(k);
      return memory;
    });
  }

  stats(): MemoryStats {
    return this.store.run((db) => {
      const totals = db
        .prepare(
          `SELECT COUNT(*) AS n, COALESCE(SUM(LENGTH(CAST(content AS BLOB))), 0) AS bytes, MIN(created_at) AS oldest, MAX(updated_at) AS newest FROM memories`,
        )
        .get() as {
        n: number;
        bytes: number;
        oldest: string | null;
        newest: string | null;
      };
      const authors: Record<string, number> = {};
      for (const r of db.prepare(`SELECT COALESCE(author, '(unknown)') AS a, COUNT(*) AS n FROM memories GROUP BY a ORDER BY n DESC, a`).all() as {
        a: string;
        n: number;
      }[]) {
        authors[r.a] = r.n;
      }
      const tags: Record<string, number> = {};
      for (const r of db.prepare(`SELECT j.value AS t, COUNT(*) AS n FROM memories, json_each(memories.tags) j GROUP BY t ORDER BY n DESC, t`).all() as {
        t: string;
        n: number;
      }[]) {
        tags[r.t] = r.n;
      }
      return { count: totals.n, total_bytes: totals.bytes, authors, tags, oldest: totals.oldest, newest: totals.newest };
    });
  }

  private load(db: Sql, key: string): Memory {
    const row = db.prepare(`SELECT * FROM memories WHERE key = ?`).get(key) as MemoryRow | undefined;
    if (row) return toMemory(row);
    const similar = (
      db.prepare(`SELECT key FROM memories WHERE instr(lower(key), lower(?)) > 0 ORDER BY updated_at DESC LIMIT 10`).all(key) as { key: string }[]
    ).map((r) => r.key);
    const hint = similar.length > 0 ? `; similar keys: ${similar.join(', ')}` : '; see synapse memory list';
    throw new SynapseError('not_found', `no memory with key '${key}'${hint}`, { key, similar });
  }
}

function toMemory(row: MemoryRow): Memory {
  let tags: string[] = [];
  try {
    const parsed = JSON.parse(row.tags) as unknown;
    if (Array.isArray(parsed)) tags = parsed.filter((t): t is string => typeof t === 'string');
  } catch {
    // A hand-edited row with bad tags still shows its content.
  }
  return { id: row.id, key: row.key, content: row.content, tags, author: row.author, created_at: row.created_at, updated_at: row.updated_at };
}
