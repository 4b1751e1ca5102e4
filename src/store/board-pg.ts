import { SynapseError } from '../errors.js';
import { systemClock, iso, type Clock } from '../clock.js';
import { PgDb, type PgMigration, type Query, migrateComponent, withPgDb } from './pg-db.js';
import type { BoardStore } from './board-api.js';
import type { BoardTask, NewTask, TaskFilter, TaskRow } from './board-schema.js';
import {
  FINISHED,
  attachDeps,
  blockedCompletion,
  blockedRefusal,
  completeRefusal,
  failRefusal,
  refusal,
  reopenRefusal,
  shortId,
  type CompleteResult,
  type DepRow,
  type PurgeOptions,
  type PurgeResult,
} from './board-rules.js';
import { findCycle } from './board-graph.js';
import { requireName, requireText, validateNewTask } from './board-input.js';
import { pickByPrefix } from './prefix.js';

/**
 * The board's tables in PostgreSQL: the same columns as the SQLite file (timestamps as ISO text,
 * so both backends hand out identical tasks), prefixed `board_` because one database holds every
 * store component of a team.
 */
export const BOARD_PG_MIGRATIONS: PgMigration[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE board_tasks (
        id           TEXT PRIMARY KEY,
        subject      TEXT NOT NULL,
        description  TEXT NOT NULL DEFAULT '',
        status       TEXT NOT NULL DEFAULT 'pending'
                     CHECK (status IN ('pending', 'in_progress', 'completed', 'failed')),
        priority     INTEGER NOT NULL DEFAULT 3 CHECK (priority BETWEEN 1 AND 5),
        created_by   TEXT,
        assignee     TEXT,
        claimed_by   TEXT,
        group_id     TEXT,
        group_title  TEXT,
        plan_id      TEXT,
        component    TEXT,
        milestone    TEXT,
        external_ref TEXT,
        a2a_task_id  TEXT,
        fail_reason  TEXT,
        created_at   TEXT NOT NULL,
        updated_at   TEXT NOT NULL,
        completed_at TEXT
      );
      CREATE TABLE board_task_deps (
        task_id    TEXT NOT NULL REFERENCES board_tasks(id) ON DELETE CASCADE,
        blocked_by TEXT NOT NULL REFERENCES board_tasks(id) ON DELETE CASCADE,
        PRIMARY KEY (task_id, blocked_by),
        CHECK (task_id <> blocked_by)
      );
      CREATE INDEX board_tasks_by_status ON board_tasks(status, priority DESC, created_at);
      CREATE INDEX board_tasks_by_assignee ON board_tasks(assignee) WHERE assignee IS NOT NULL;
      CREATE INDEX board_tasks_by_group ON board_tasks(group_id) WHERE group_id IS NOT NULL;
      CREATE INDEX board_tasks_by_component ON board_tasks(component) WHERE component IS NOT NULL;
      CREATE INDEX board_tasks_by_milestone ON board_tasks(milestone) WHERE milestone IS NOT NULL;
      CREATE INDEX board_tasks_by_id_prefix ON board_tasks(id text_pattern_ops);
      CREATE INDEX board_task_deps_by_blocker ON board_task_deps(blocked_by);
      CREATE UNIQUE INDEX board_tasks_by_a2a_task ON board_tasks(a2a_task_id) WHERE a2a_task_id IS NOT NULL;
    `,
  },
];

const ID_CHARS = /^[0-9a-f-]+$/;
const FULL_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The claim: changes the row only while the task is pending and no blocker is unfinished.
 * Concurrent claimers queue on the row lock, and each re-checks the condition on the row as the
 * winner left it, so exactly one gets the row back ($1 id, $2 agent, $3 now).
 */
const CLAIM_SQL = `
  UPDATE board_tasks t SET status = 'in_progress', claimed_by = $2, assignee = COALESCE(t.assignee, $2), updated_at = $3
   WHERE t.id = $1 AND t.status = 'pending'
     AND NOT EXISTS (SELECT 1 FROM board_task_deps d JOIN board_tasks b ON b.id = d.blocked_by
                      WHERE d.task_id = $1 AND b.status <> 'completed')
  RETURNING t.*, ARRAY(SELECT d.blocked_by FROM board_task_deps d JOIN board_tasks b ON b.id = d.blocked_by
                        WHERE d.task_id = t.id ORDER BY b.created_at, b.id COLLATE "C") AS blocked_by`;
const UNIQUE_VIOLATION = '23505';

function isUniqueViolation(err: unknown): err is { code: string; constraint?: string } {
  return (err as { code?: string })?.code === UNIQUE_VIOLATION;
}

export class PgTaskBoard implements BoardStore {
  readonly backend = 'postgres' as const;
  readonly location: string;

  private constructor(
    private readonly db: PgDb,
    private readonly clock: Clock,
  ) {
    this.location = db.shown;
  }

  /** Connects and brings the board's tables to the newest version. */
  static async open(url: string, options: { clock?: Clock; retryForMs?: number } = {}): Promise<PgTaskBoard> {
    const db = new PgDb(url, { retryForMs: options.retryForMs });
    try {
      await db.migrate('board', BOARD_PG_MIGRATIONS);
    } catch (err) {
      await db.close();
      throw err;
    }
    return new PgTaskBoard(db, options.clock ?? systemClock);
  }

  async close(): Promise<void> {
    await this.db.close();
  }

  schemaVersion(): Promise<number> {
    return this.db.schemaVersion('board');
  }

  async changeToken(): Promise<string> {
    const [r] = await this.db.query<{ n: number; m: string | null; d: number }>(
      `SELECT (SELECT COUNT(*)::int FROM board_tasks) AS n, (SELECT MAX(updated_at) FROM board_tasks) AS m, (SELECT COUNT(*)::int FROM board_task_deps) AS d`,
    );
    return `${r?.n ?? 0}:${r?.d ?? 0}:${r?.m ?? ''}`;
  }

  async counts(): Promise<Record<string, number>> {
    const [r] = await this.db.query<{ tasks: number; task_deps: number }>(
      `SELECT (SELECT COUNT(*)::int FROM board_tasks) AS tasks, (SELECT COUNT(*)::int FROM board_task_deps) AS task_deps`,
    );
    return { tasks: r?.tasks ?? 0, task_deps: r?.task_deps ?? 0 };
  }

  // ── reads ────────────────────────────────────────────────────────────────────────────────

  resolveId(idOrPrefix: string): Promise<string> {
    return this.read((q) => resolve(q, idOrPrefix));
  }

  get(idOrPrefix: string): Promise<BoardTask> {
    return this.read(async (q) => load(q, await resolve(q, idOrPrefix)));
  }

  list(filter: TaskFilter = {}): Promise<BoardTask[]> {
    return this.read(async (q) => {
      const where: string[] = [];
      const params: unknown[] = [];
      const param = (v: unknown) => {
        params.push(v);
        return `$${params.length}`;
      };
      if (filter.status && filter.status.length > 0) where.push(`status = ANY(${param(filter.status)}::text[])`);
      if (filter.assignee && filter.assignee.length > 0) {
        const p = param(filter.assignee);
        where.push(`(assignee = ANY(${p}::text[]) OR claimed_by = ANY(${p}::text[]))`);
      }
      for (const field of ['group_id', 'component', 'milestone', 'plan_id'] as const) {
        const v = filter[field];
        if (v !== undefined) where.push(`${field} = ${param(v)}`);
      }
      const rows = await q<TaskRow>(
        `SELECT * FROM board_tasks ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
         ORDER BY CASE status WHEN 'in_progress' THEN 0 WHEN 'pending' THEN 1 WHEN 'failed' THEN 2 ELSE 3 END,
                  priority DESC, created_at, id COLLATE "C"`,
        params,
      );
      return withDeps(q, rows);
    });
  }

  blockers(idOrPrefix: string): Promise<BoardTask[]> {
    return this.read(async (q) => withDeps(q, await unfinishedBlockers(q, await resolve(q, idOrPrefix))));
  }

  dependants(idOrPrefix: string): Promise<BoardTask[]> {
    return this.read(async (q) => {
      const id = await resolve(q, idOrPrefix);
      const rows = await q<TaskRow>(
        `SELECT t.* FROM board_task_deps d JOIN board_tasks t ON t.id = d.task_id WHERE d.blocked_by = $1 ORDER BY t.created_at, t.id COLLATE "C"`,
        [id],
      );
      return withDeps(q, rows);
    });
  }

  findByA2aTask(a2aTaskId: string): Promise<BoardTask | null> {
    return this.read(async (q) => {
      const id = await linkedId(q, a2aTaskId);
      return id === null ? null : load(q, id);
    });
  }

  // ── writes ───────────────────────────────────────────────────────────────────────────────

  async create(input: NewTask): Promise<BoardTask> {
    return (await this.createMany([input]))[0]!;
  }

  async createMany(inputs: NewTask[]): Promise<BoardTask[]> {
    if (inputs.length === 0) return [];
    const prepared = inputs.map((input) => validateNewTask(input));
    return this.db.tx(async (q) => {
      const batchIds = new Set<string>();
      for (const t of prepared) {
        if (batchIds.has(t.id)) throw new SynapseError('usage', `task id ${t.id} appears twice in the batch`, { id: t.id });
        batchIds.add(t.id);
      }
      const existing = await q<{ id: string }>(`SELECT id FROM board_tasks WHERE id = ANY($1::text[])`, [[...batchIds]]);
      if (existing[0]) throw new SynapseError('conflict', `a task with id ${existing[0].id} already exists`, { id: existing[0].id });
      for (const t of prepared) {
        if (t.a2a_task_id === null) continue;
        const other = await linkedId(q, t.a2a_task_id);
        if (other) throw linkConflict(t.a2a_task_id, other);
      }
      const edges = new Map<string, string[]>();
      for (const t of prepared) {
        const deps: string[] = [];
        for (const ref of t.blocked_by) {
          const r = ref.trim().toLowerCase();
          deps.push(batchIds.has(r) ? r : await resolve(q, r));
        }
        edges.set(t.id, [...new Set(deps)]);
      }
      for (const [id, deps] of edges) {
        if (deps.includes(id)) throw new SynapseError('usage', `dependency cycle: task ${shortId(id)} cannot be blocked by itself`, { cycle: [id, id] });
      }
      const internal = new Map([...edges].map(([id, deps]) => [id, deps.filter((d) => batchIds.has(d))]));
      const cycle = findCycle(internal);
      if (cycle) throw new SynapseError('usage', `dependency cycle refused: ${cycle.map(shortId).join(' → ')}`, { cycle });

      const now = iso(this.clock.now());
      try {
        for (const t of prepared) {
          await q(
            `INSERT INTO board_tasks (id, subject, description, status, priority, created_by, assignee, group_id, group_title,
                                      plan_id, component, milestone, external_ref, a2a_task_id, created_at, updated_at)
             VALUES ($1, $2, $3, 'pending', $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $14)`,
            [
              t.id,
              t.subject,
              t.description,
              t.priority,
              t.created_by,
              t.assignee,
              t.group_id,
              t.group_title,
              t.plan_id,
              t.component,
              t.milestone,
              t.external_ref,
              t.a2a_task_id,
              now,
            ],
          );
        }
      } catch (err) {
        // Another host created the same id or link between our check and our insert: the constraint decides.
        if (isUniqueViolation(err)) {
          throw new SynapseError('conflict', `a task with one of these ids or A2A links was created at the same time: ${err.constraint ?? 'unique'}`, {
            constraint: err.constraint,
          });
        }
        throw err;
      }
      for (const [id, deps] of edges) for (const d of deps) await q(`INSERT INTO board_task_deps (task_id, blocked_by) VALUES ($1, $2)`, [id, d]);
      const rows = await q<TaskRow>(`SELECT * FROM board_tasks WHERE id = ANY($1::text[])`, [[...batchIds]]);
      const byId = new Map((await withDeps(q, rows)).map((t) => [t.id, t]));
      return prepared.map((t) => byId.get(t.id)!);
    });
  }

  async assign(idOrPrefix: string, agent: string): Promise<BoardTask> {
    const who = requireName(agent, 'agent');
    return this.db.tx(async (q) => {
      const id = await resolve(q, idOrPrefix);
      await q(`UPDATE board_tasks SET assignee = $1, updated_at = $2 WHERE id = $3`, [who, iso(this.clock.now()), id]);
      return load(q, id);
    });
  }

  /** One conditional UPDATE decides (CLAIM_SQL); no read comes before it. */
  async claim(idOrPrefix: string, agent: string): Promise<BoardTask> {
    const who = requireName(agent, 'agent');
    const given = idOrPrefix.trim().toLowerCase();
    const id = FULL_ID.test(given) ? given : await this.resolveId(given);
    // The decision: one statement, one round trip, committed by itself.
    const [won] = await this.db.tx((q) => q<TaskRow & { blocked_by: string[] }>(CLAIM_SQL, [id, who, iso(this.clock.now())]), { autocommit: true });
    if (won) return { ...won, blocked: false };
    // Not granted: say why, from the row as the winner left it (one plain read in the usual case).
    return this.db.tx((q) => this.explainClaim(q, id, who), { readOnly: true, plain: true });
  }

  async complete(idOrPrefix: string, options: { by?: string } = {}): Promise<CompleteResult> {
    return this.db.tx(async (q) => {
      const id = await resolve(q, idOrPrefix);
      return this.completeIn(q, await lockTask(q, id), options.by ?? null, false);
    });
  }

  async fail(idOrPrefix: string, reason: string): Promise<BoardTask> {
    const why = requireText(reason, 'fail reason', 2000);
    return this.db.tx(async (q) => this.failIn(q, await lockTask(q, await resolve(q, idOrPrefix)), why));
  }

  async reopen(idOrPrefix: string): Promise<BoardTask> {
    return this.db.tx(async (q) => {
      const task = await lockTask(q, await resolve(q, idOrPrefix));
      if (task.status === 'pending') throw reopenRefusal(task);
      await q(`UPDATE board_tasks SET status = 'pending', claimed_by = NULL, fail_reason = NULL, completed_at = NULL, updated_at = $1 WHERE id = $2`, [
        iso(this.clock.now()),
        task.id,
      ]);
      return load(q, task.id);
    });
  }

  async purge(options: PurgeOptions): Promise<PurgeResult> {
    if (options.statuses.length === 0) throw new SynapseError('usage', 'purge needs at least one status');
    return this.db.tx(async (q) => {
      // No task changes state while the purge decides what may go.
      await q(`LOCK TABLE board_tasks IN SHARE ROW EXCLUSIVE MODE`);
      const cutoff = iso(this.clock.now() - (options.olderThanMs ?? 0));
      const rows = await q<TaskRow>(
        `SELECT * FROM board_tasks WHERE status = ANY($1::text[]) AND COALESCE(completed_at, updated_at) <= $2 ORDER BY created_at, id COLLATE "C"`,
        [options.statuses, cutoff],
      );
      const candidates = new Set(rows.map((r) => r.id));
      const waiting = new Map<string, string[]>();
      for (let changed = true; changed;) {
        changed = false;
        for (const id of candidates) {
          const waiters = await q<{ id: string }>(
            `SELECT d.task_id AS id FROM board_task_deps d JOIN board_tasks t ON t.id = d.task_id WHERE d.blocked_by = $1 AND t.status IN ('pending', 'in_progress')`,
            [id],
          );
          const live = waiters.map((r) => r.id).filter((w) => !candidates.has(w));
          if (live.length > 0) {
            candidates.delete(id);
            waiting.set(id, live);
            changed = true;
          }
        }
      }
      const all = await withDeps(q, rows);
      const purged = all.filter((t) => candidates.has(t.id));
      const skipped = all.filter((t) => waiting.has(t.id)).map((task) => ({ task, waiting: waiting.get(task.id) ?? [] }));
      if (!options.dryRun && purged.length > 0) await q(`DELETE FROM board_tasks WHERE id = ANY($1::text[])`, [purged.map((t) => t.id)]);
      return { purged, skipped, dry_run: options.dryRun ?? false };
    });
  }

  // ── A2A links ────────────────────────────────────────────────────────────────────────────

  async linkA2aTask(idOrPrefix: string, a2aTaskId: string): Promise<BoardTask> {
    const link = requireName(a2aTaskId, 'a2a_task_id');
    return this.db.tx(async (q) => {
      const id = await resolve(q, idOrPrefix);
      const other = await q<{ id: string }>(`SELECT id FROM board_tasks WHERE a2a_task_id = $1 AND id <> $2`, [link, id]);
      if (other[0]) throw linkConflict(link, other[0].id);
      try {
        await q(`UPDATE board_tasks SET a2a_task_id = $1, updated_at = $2 WHERE id = $3`, [link, iso(this.clock.now()), id]);
      } catch (err) {
        if (isUniqueViolation(err))
          throw new SynapseError('conflict', `A2A task ${link} was linked to another board task at the same time`, { a2a_task_id: link });
        throw err;
      }
      return load(q, id);
    });
  }

  async claimByA2aTask(a2aTaskId: string, agent: string): Promise<BoardTask | null> {
    const who = requireName(agent, 'agent');
    return this.db.tx(async (q) => {
      const id = await linkedId(q, a2aTaskId);
      if (id === null) return null;
      return this.claimLenient(q, id, who);
    });
  }

  async completeByA2aTask(a2aTaskId: string): Promise<CompleteResult | null> {
    return this.db.tx(async (q) => {
      const id = await linkedId(q, a2aTaskId);
      if (id === null) return null;
      const task = await lockTask(q, id);
      if (FINISHED.has(task.status)) return { task, unblocked: [] };
      return this.completeIn(q, task, task.assignee, true);
    });
  }

  async failByA2aTask(a2aTaskId: string, reason: string): Promise<BoardTask | null> {
    const why = requireText(reason || 'A2A task failed', 'fail reason', 2000);
    return this.db.tx(async (q) => {
      const id = await linkedId(q, a2aTaskId);
      if (id === null) return null;
      const task = await lockTask(q, id);
      if (FINISHED.has(task.status)) return task;
      return this.failIn(q, task, why);
    });
  }

  // ── internals (inside a transaction) ─────────────────────────────────────────────────────

  private read<T>(fn: (q: Query) => Promise<T>): Promise<T> {
    return this.db.tx(fn, { readOnly: true });
  }

  /** The linked A2A task started: claim when claimable, else the task as it is. */
  private async claimLenient(q: Query, id: string, who: string): Promise<BoardTask> {
    const [won] = await q<TaskRow & { blocked_by: string[] }>(CLAIM_SQL, [id, who, iso(this.clock.now())]);
    return won ? { ...won, blocked: false } : load(q, id);
  }

  /** Why a claim was not granted: your own claim comes back; anything else is an error that says why. */
  private async explainClaim(q: Query, id: string, who: string): Promise<BoardTask> {
    const [row] = await q<TaskRow>(`SELECT * FROM board_tasks WHERE id = $1`, [id]);
    if (!row) throw new SynapseError('task_not_found', `no task ${id} on the board`, { id });
    if (row.status === 'in_progress' && row.claimed_by === who) return (await withDeps(q, [row]))[0]!;
    // The refusal needs only the row itself.
    const task: BoardTask = { ...row, blocked_by: [], blocked: false };
    if (task.status !== 'pending') throw refusal(task);
    const blockers = await unfinishedBlockers(q, id);
    if (blockers.length > 0) throw blockedRefusal(id, blockers);
    throw new SynapseError('conflict', `task ${shortId(id)} changed while it was being claimed; try again`, { id });
  }

  private async completeIn(q: Query, task: BoardTask, by: string | null, force: boolean): Promise<CompleteResult> {
    const id = task.id;
    if (FINISHED.has(task.status)) throw completeRefusal(task);
    if (!force && task.blocked) throw blockedCompletion(id, await unfinishedBlockers(q, id));
    const now = iso(this.clock.now());
    await q(
      `UPDATE board_tasks SET status = 'completed', claimed_by = COALESCE(claimed_by, $1), fail_reason = NULL, completed_at = $2, updated_at = $2 WHERE id = $3`,
      [by, now, id],
    );
    const waiting = await q<TaskRow>(
      `SELECT t.* FROM board_task_deps d JOIN board_tasks t ON t.id = d.task_id WHERE d.blocked_by = $1 AND t.status = 'pending' ORDER BY t.priority DESC, t.created_at, t.id COLLATE "C"`,
      [id],
    );
    const unblocked = (await withDeps(q, waiting)).filter((t) => !t.blocked);
    return { task: await load(q, id), unblocked };
  }

  private async failIn(q: Query, task: BoardTask, why: string): Promise<BoardTask> {
    if (FINISHED.has(task.status)) throw failRefusal(task);
    const now = iso(this.clock.now());
    await q(`UPDATE board_tasks SET status = 'failed', fail_reason = $1, completed_at = $2, updated_at = $2 WHERE id = $3`, [why, now, task.id]);
    return load(q, task.id);
  }
}

function linkConflict(a2aTaskId: string, taskId: string): SynapseError {
  return new SynapseError('conflict', `A2A task ${a2aTaskId} is already linked to board task ${taskId}`, { a2a_task_id: a2aTaskId, task_id: taskId });
}

/** Full id for an id or unique prefix; not-found and ambiguous errors list the candidates. */
async function resolve(q: Query, idOrPrefix: string): Promise<string> {
  const prefix = idOrPrefix.trim().toLowerCase();
  if (prefix.length === 0 || !ID_CHARS.test(prefix)) {
    throw new SynapseError('task_not_found', `no task matches '${idOrPrefix}' (task ids are uuids; see synapse tasks list)`, { prefix: idOrPrefix });
  }
  // LIKE with text_pattern_ops uses the index; the prefix holds only hex digits and '-', no wildcards.
  const rows = await q<{ id: string; subject: string; status: string }>(
    `SELECT id, subject, status FROM board_tasks WHERE id LIKE $1 || '%' ORDER BY id COLLATE "C" LIMIT 11`,
    [prefix],
  );
  const total =
    rows.length > 10 ? ((await q<{ n: number }>(`SELECT COUNT(*)::int AS n FROM board_tasks WHERE id LIKE $1 || '%'`, [prefix]))[0]?.n ?? 0) : rows.length;
  return pickByPrefix(
    prefix,
    rows.map((r) => ({ id: r.id, label: `${r.status}  ${r.subject}` })),
    { what: 'task', notFound: 'task_not_found', ambiguous: 'ambiguous_task', total },
  );
}

async function linkedId(q: Query, a2aTaskId: string): Promise<string | null> {
  const rows = await q<{ id: string }>(`SELECT id FROM board_tasks WHERE a2a_task_id = $1`, [a2aTaskId]);
  return rows[0]?.id ?? null;
}

function unfinishedBlockers(q: Query, id: string): Promise<TaskRow[]> {
  return q<TaskRow>(
    `SELECT b.* FROM board_task_deps d JOIN board_tasks b ON b.id = d.blocked_by WHERE d.task_id = $1 AND b.status <> 'completed' ORDER BY b.created_at, b.id COLLATE "C"`,
    [id],
  );
}

async function load(q: Query, id: string): Promise<BoardTask> {
  const rows = await q<TaskRow>(`SELECT * FROM board_tasks WHERE id = $1`, [id]);
  if (!rows[0]) throw new SynapseError('task_not_found', `no task ${id} on the board`, { id });
  return (await withDeps(q, rows))[0]!;
}

/** The task, its row locked until the transaction ends (the state change that follows is decided on it alone). */
async function lockTask(q: Query, id: string): Promise<BoardTask> {
  const rows = await q<TaskRow>(`SELECT * FROM board_tasks WHERE id = $1 FOR UPDATE`, [id]);
  if (!rows[0]) throw new SynapseError('task_not_found', `no task ${id} on the board`, { id });
  return (await withDeps(q, rows))[0]!;
}

/** Attaches each row's `blocked_by` ids and whether any of them is unfinished. */
async function withDeps(q: Query, rows: TaskRow[]): Promise<BoardTask[]> {
  if (rows.length === 0) return [];
  const deps = await q<DepRow>(
    `SELECT d.task_id, d.blocked_by, b.status FROM board_task_deps d JOIN board_tasks b ON b.id = d.blocked_by
      WHERE d.task_id = ANY($1::text[]) ORDER BY b.created_at, b.id COLLATE "C"`,
    [rows.map((r) => r.id)],
  );
  return attachDeps(rows, deps);
}

/** What `synapse store status` reports of a PostgreSQL store; never migrates. */
export function pgStoreStatus(
  url: string,
  options: { retryForMs?: number } = {},
): Promise<{
  server_version: string;
  latency_ms: number;
  board: { schema_version: number; latest_version: number; rows: Record<string, number> };
  memory: { schema_version: number; rows: Record<string, number> };
}> {
  return withPgDb(url, options, async (db) => {
    const t0 = performance.now();
    const [server] = await db.query<{ v: string }>(`SELECT current_setting('server_version') AS v`);
    const latency = performance.now() - t0;
    const version = await db.schemaVersion('board');
    let rows: Record<string, number> = { tasks: 0, task_deps: 0 };
    if (version > 0) {
      const [r] = await db.query<{ tasks: number; task_deps: number }>(
        `SELECT (SELECT COUNT(*)::int FROM board_tasks) AS tasks, (SELECT COUNT(*)::int FROM board_task_deps) AS task_deps`,
      );
      rows = { tasks: r?.tasks ?? 0, task_deps: r?.task_deps ?? 0 };
    }
    const memoryVersion = await db.schemaVersion('memory');
    const memory = memoryVersion > 0 ? await db.query<{ n: number }>(`SELECT COUNT(*)::int AS n FROM memory_notes`) : [];
    return {
      server_version: server?.v ?? 'unknown',
      latency_ms: Math.round(latency * 10) / 10,
      board: { schema_version: version, latest_version: BOARD_PG_MIGRATIONS.at(-1)!.version, rows },
      memory: { schema_version: memoryVersion, rows: { notes: memory[0]?.n ?? 0 } },
    };
  });
}

/** `synapse store migrate`: brings the board's tables to the newest version. */
export function pgStoreMigrate(url: string, options: { retryForMs?: number } = {}): Promise<{ from: number; to: number }> {
  return migrateComponent(url, 'board', BOARD_PG_MIGRATIONS, options);
}
