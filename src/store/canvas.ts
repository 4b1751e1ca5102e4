import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { canvasDbPath, type Env } from '../config/paths.js';
import { SynapseError } from '../errors.js';
import { systemClock, iso, type Clock } from '../clock.js';
import type { Migration } from './sqlite.js';
import { StoreDb, type Sql } from './store-db.js';
import { parseCardType, validateBody, type CardType } from './canvas-cards.js';

export * from './canvas-cards.js';

/**
 * Canvas schema. v1: one row per card (its body as JSON text), with an FTS5 index over title and
 * body kept in step by triggers, for `canvas list --search` and the dashboard's History view.
 */
const CANVAS_MIGRATIONS: Migration[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE cards (
        seq        INTEGER PRIMARY KEY AUTOINCREMENT,
        id         TEXT NOT NULL UNIQUE,
        type       TEXT NOT NULL,
        title      TEXT NOT NULL DEFAULT '',
        body       TEXT NOT NULL,
        agent_id   TEXT NOT NULL,
        agent_name TEXT,
        tags       TEXT NOT NULL DEFAULT '[]',
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      CREATE INDEX cards_by_agent ON cards(agent_id);
      CREATE INDEX cards_by_type ON cards(type);
      CREATE INDEX cards_by_updated ON cards(updated_at);
      CREATE VIRTUAL TABLE cards_fts USING fts5(title, body, content = 'cards', content_rowid = 'seq', tokenize = 'unicode61 remove_diacritics 2');
      CREATE TRIGGER cards_fts_insert AFTER INSERT ON cards BEGIN
        INSERT INTO cards_fts(rowid, title, body) VALUES (new.seq, new.title, new.body);
      END;
      CREATE TRIGGER cards_fts_delete AFTER DELETE ON cards BEGIN
        INSERT INTO cards_fts(cards_fts, rowid, title, body) VALUES ('delete', old.seq, old.title, old.body);
      END;
      CREATE TRIGGER cards_fts_update AFTER UPDATE ON cards BEGIN
        INSERT INTO cards_fts(cards_fts, rowid, title, body) VALUES ('delete', old.seq, old.title, old.body);
        INSERT INTO cards_fts(rowid, title, body) VALUES (new.seq, new.title, new.body);
      END;
    `,
  },
];

interface CardRow {
  seq: number;
  id: string;
  type: string;
  title: string;
  body: string;
  agent_id: string;
  agent_name: string | null;
  tags: string;
  created_at: string;
  updated_at: string;
}

export interface Card {
  id: string;
  type: CardType;
  title: string;
  body: unknown;
  agent_id: string;
  agent_name: string | null;
  tags: string[];
  created_at: string;
  updated_at: string;
}

/** What a poster gives: `id` reuses (updates) a card, so a progress or plan card can change in place. */
export interface NewCard {
  id?: string;
  type: string;
  title?: string;
  body: unknown;
  agent_id: string;
  agent_name?: string | null;
  tags?: string[];
}

export interface CardFilter {
  agent?: string;
  type?: string;
  search?: string;
  limit?: number;
}

const CARD_ID = /^[A-Za-z0-9_.-]{1,100}$/;

function checkCardId(id: string): string {
  if (!CARD_ID.test(id)) throw new SynapseError('invalid_input', `card id '${id}' must be 1-100 letters, digits, '.', '_' or '-'`);
  return id;
}

function toCard(r: CardRow): Card {
  return {
    id: r.id,
    type: r.type as CardType,
    title: r.title,
    body: JSON.parse(r.body) as unknown,
    agent_id: r.agent_id,
    agent_name: r.agent_name,
    tags: JSON.parse(r.tags) as string[],
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

/** `agent` matches an agent id or name. */
const AGENT = `(agent_id = @agent OR agent_name = @agent)`;

/**
 * The Canvas cards (`~/.synapse/canvas.db`): what agents post for a person to look at. Posting
 * with an existing id replaces that card's body and title (its author and creation time stay).
 */
export class CanvasStore {
  readonly file: string;
  private readonly store: StoreDb;
  private readonly clock: Clock;

  constructor(file: string, options: { clock?: Clock } = {}) {
    this.file = file;
    this.clock = options.clock ?? systemClock;
    this.store = new StoreDb(file, CANVAS_MIGRATIONS);
  }

  static open(env: Env, options: { clock?: Clock } = {}): CanvasStore {
    return new CanvasStore(canvasDbPath(env), options);
  }

  static exists(env: Env): boolean {
    return fs.existsSync(canvasDbPath(env));
  }

  close(): void {
    this.store.close();
  }

  /** Changes whenever another connection commits: the server polls it to notice writers it did not see. */
  dataVersion(): number {
    return this.store.run((db) => db.pragma('data_version', { simple: true }) as number);
  }

  post(input: NewCard): { card: Card; created: boolean } {
    const type = parseCardType(input.type);
    const body = validateBody(type, input.body);
    const id = input.id === undefined ? randomUUID() : checkCardId(input.id);
    const title = (input.title ?? '').trim();
    if (title.length > 500) throw new SynapseError('invalid_input', `card title is too long (${title.length} > 500 characters)`);
    const agent = input.agent_id.trim();
    if (agent.length === 0 || agent.length > 200) throw new SynapseError('invalid_input', 'a card needs an author (agent id or name) of 1-200 characters');
    const tags = (input.tags ?? []).map((t) => t.trim()).filter((t) => t.length > 0);
    if (tags.length > 20 || tags.some((t) => t.length > 100)) throw new SynapseError('invalid_input', 'a card has at most 20 tags of at most 100 characters');
    return this.store.write((db) => {
      const existing = db.prepare(`SELECT * FROM cards WHERE id = ?`).get(id) as CardRow | undefined;
      if (existing && existing.type !== type) {
        throw new SynapseError('conflict', `card ${id} is a ${existing.type} card; post a ${type} card under another id`, { id });
      }
      const now = iso(this.clock.now());
      const row = {
        id,
        type,
        title,
        body: JSON.stringify(body),
        agent_id: agent,
        agent_name: input.agent_name?.trim() || null,
        tags: JSON.stringify(tags),
        now,
      };
      if (existing) db.prepare(`UPDATE cards SET title = @title, body = @body, tags = @tags, updated_at = @now WHERE id = @id`).run(row);
      else
        db.prepare(
          `INSERT INTO cards (id, type, title, body, agent_id, agent_name, tags, created_at, updated_at) VALUES (@id, @type, @title, @body, @agent_id, @agent_name, @tags, @now, @now)`,
        ).run(row);
      return { card: this.load(db, id), created: !existing };
    });
  }

  get(id: string): Card {
    return this.store.run((db) => this.load(db, id));
  }

  /** Newest first (by last update); `search` is full text over title and body. */
  list(filter: CardFilter = {}): Card[] {
    const where: string[] = [];
    const params: Record<string, unknown> = { limit: filter.limit ?? 200 };
    if (filter.agent) {
      where.push(AGENT);
      params.agent = filter.agent;
    }
    if (filter.type) {
      where.push(`type = @type`);
      params.type = parseCardType(filter.type);
    }
    if (filter.search !== undefined) {
      const words = filter.search.match(/[\p{L}\p{N}_]+/gu) ?? [];
      if (words.length === 0) throw new SynapseError('usage', 'search needs at least one word of letters or digits');
      where.push(`seq IN (SELECT rowid FROM cards_fts WHERE cards_fts MATCH @match)`);
      params.match = words.map((w) => `"${w}"*`).join(' AND ');
    }
    return this.store.run((db) =>
      (
        db
          .prepare(`SELECT * FROM cards ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY updated_at DESC, seq DESC LIMIT @limit`)
          .all(params) as CardRow[]
      ).map(toCard),
    );
  }

  delete(id: string): Card {
    return this.store.write((db) => {
      const card = this.load(db, id);
      db.prepare(`DELETE FROM cards WHERE id = ?`).run(id);
      return card;
    });
  }

  /** Deletes every card, or every card of one agent (id or name); returns how many. */
  clear(filter: { agent?: string } = {}): number {
    return this.store.write((db) =>
      filter.agent ? db.prepare(`DELETE FROM cards WHERE ${AGENT}`).run({ agent: filter.agent }).changes : db.prepare(`DELETE FROM cards`).run().changes,
    );
  }

  private load(db: Sql, id: string): Card {
    const row = db.prepare(`SELECT * FROM cards WHERE id = ?`).get(id) as CardRow | undefined;
    if (!row) throw new SynapseError('not_found', `no card '${id}' on the canvas; see synapse canvas list`, { id });
    return toCard(row);
  }
}
