import { SynapseError } from '../errors.js';
import type { Sql } from './store-db.js';
import { StoreDb } from './store-db.js';
import { BOARD_MIGRATIONS, type BoardTask, type NewTask, type TaskFilter, type TaskRow } from './board-schema.js';
import { findCycle } from './board-graph.js';
import { linkedId, resolve, unfinishedBlockers, withDeps } from './board-queries.js';
import { requireName, requireText, validateNewTask } from './board-input.js';
import { systemClock, iso, type Clock } from '../clock.js';
import { boardDbPath } from './settings.js';
import {
  FINISHED,
  blockedCompletion,
  blockedRefusal,
  completeRefusal,
  failRefusal,
  refusal,
  reopenRefusal,
  shortId,
  type CompleteResult,
  type PurgeOptions,
  type PurgeResult,
} from './board-rules.js';

export * from './board-schema.js';
export * from './board-rules.js';

/**
 * The project's task board (`.synapse/task_board.db`). Every state change runs under
 * `BEGIN IMMEDIATE`, so checks and updates see one consistent board and a claim has exactly
 * one winner across processes. Claimability is derived, not stored: a pending task is
 * claimable when all of its `blocked_by` tasks are completed, so completing a task unblocks
 * its dependants with no extra bookkeeping.
 */
export class TaskBoard {
  readonly file: string;
  private readonly store: StoreDb;
  private readonly clock: Clock;

  constructor(file: string, options: { clock?: Clock } = {}) {
    this.file = file;
    this.store = new StoreDb(file, BOARD_MIGRATIONS);
    this.clock = options.clock ?? systemClock;
  }

  static forProject(projectDir: string, options: { clock?: Clock } = {}): TaskBoard {
    return new TaskBoard(boardDbPath(projectDir), options);
  }

  close(): void {
    this.store.close();
  }

  schemaVersion(): number {
    return this.store.schemaVersion();
  }

  /** Changes whenever another connection commits (the Canvas server polls it to follow the board). */
  dataVersion(): number {
    return this.store.run((db) => db.pragma('data_version', { simple: true }) as number);
  }

  /** Rows per table (`synapse store status`). */
  counts(): Record<string, number> {
    return this.store.run((db) => ({
      tasks: (db.prepare(`SELECT COUNT(*) AS n FROM tasks`).get() as { n: number }).n,
      task_deps: (db.prepare(`SELECT COUNT(*) AS n FROM task_deps`).get() as { n: number }).n,
    }));
  }

  // ── reads ────────────────────────────────────────────────────────────────────────────────

  /** The full id for an id or unique prefix; errors list the candidates. */
  resolveId(idOrPrefix: string): string {
    return this.store.run((db) => resolve(db, idOrPrefix));
  }

  get(idOrPrefix: string): BoardTask {
    return this.store.run((db) => this.load(db, resolve(db, idOrPrefix)));
  }

  list(filter: TaskFilter = {}): BoardTask[] {
    return this.store.run((db) => {
      const where: string[] = [];
      const params: unknown[] = [];
      if (filter.status && filter.status.length > 0) {
        where.push(`status IN (SELECT value FROM json_each(?))`);
        params.push(JSON.stringify(filter.status));
      }
      if (filter.assignee && filter.assignee.length > 0) {
        where.push(`(assignee IN (SELECT value FROM json_each(?)) OR claimed_by IN (SELECT value FROM json_each(?)))`);
        params.push(JSON.stringify(filter.assignee), JSON.stringify(filter.assignee));
      }
      for (const field of ['group_id', 'component', 'milestone', 'plan_id'] as const) {
        const v = filter[field];
        if (v !== undefined) {
          where.push(`${field} = ?`);
          params.push(v);
        }
      }
      const rows = db
        .prepare(
          `SELECT * FROM tasks ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
           ORDER BY CASE status WHEN 'in_progress' THEN 0 WHEN 'pending' THEN 1 WHEN 'failed' THEN 2 ELSE 3 END,
                    priority DESC, created_at, id`,
        )
        .all(...params) as TaskRow[];
      return withDeps(db, rows);
    });
  }

  /** Unfinished tasks this one waits for (empty = claimable if pending). */
  blockers(idOrPrefix: string): BoardTask[] {
    return this.store.run((db) => {
      const id = resolve(db, idOrPrefix);
      const rows = db
        .prepare(`SELECT t.* FROM task_deps d JOIN tasks t ON t.id = d.blocked_by WHERE d.task_id = ? AND t.status <> 'completed' ORDER BY t.created_at`)
        .all(id) as TaskRow[];
      return withDeps(db, rows);
    });
  }

  /** Tasks that wait for this one. */
  dependants(idOrPrefix: string): BoardTask[] {
    return this.store.run((db) => {
      const id = resolve(db, idOrPrefix);
      const rows = db.prepare(`SELECT t.* FROM task_deps d JOIN tasks t ON t.id = d.task_id WHERE d.blocked_by = ? ORDER BY t.created_at`).all(id) as TaskRow[];
      return withDeps(db, rows);
    });
  }

  findByA2aTask(a2aTaskId: string): BoardTask | null {
    return this.store.run((db) => {
      const row = db.prepare(`SELECT id FROM tasks WHERE a2a_task_id = ?`).get(a2aTaskId) as { id: string } | undefined;
      return row ? this.load(db, row.id) : null;
    });
  }

  // ── writes ───────────────────────────────────────────────────────────────────────────────

  create(input: NewTask): BoardTask {
    return this.createMany([input])[0]!;
  }

  /**
   * Creates tasks in one transaction. `blocked_by` may name existing tasks (id or prefix) or
   * tasks of the same batch (exact id); a dependency cycle refuses the whole batch.
   */
  createMany(inputs: NewTask[]): BoardTask[] {
    if (inputs.length === 0) return [];
    const prepared = inputs.map((input) => validateNewTask(input));
    return this.store.write((db) => {
      const batchIds = new Set<string>();
      for (const t of prepared) {
        if (batchIds.has(t.id)) throw new SynapseError('usage', `task id ${t.id} appears twice in the batch`, { id: t.id });
        batchIds.add(t.id);
        if (db.prepare(`SELECT 1 FROM tasks WHERE id = ?`).get(t.id)) {
          throw new SynapseError('conflict', `a task with id ${t.id} already exists`, { id: t.id });
        }
        if (t.a2a_task_id !== null) {
          const other = db.prepare(`SELECT id FROM tasks WHERE a2a_task_id = ?`).get(t.a2a_task_id) as { id: string } | undefined;
          if (other)
            throw new SynapseError('conflict', `A2A task ${t.a2a_task_id} is already linked to board task ${other.id}`, {
              a2a_task_id: t.a2a_task_id,
              task_id: other.id,
            });
        }
      }
      const edges = new Map<string, string[]>();
      for (const t of prepared) {
        const deps = t.blocked_by.map((ref) => {
          const r = ref.trim().toLowerCase();
          return batchIds.has(r) ? r : resolve(db, r);
        });
        edges.set(t.id, [...new Set(deps)]);
      }
      for (const [id, deps] of edges) {
        if (deps.includes(id)) throw new SynapseError('usage', `dependency cycle: task ${shortId(id)} cannot be blocked by itself`, { cycle: [id, id] });
      }
      // Existing tasks cannot wait for tasks that do not exist yet, so any cycle lies within the batch.
      const internal = new Map([...edges].map(([id, deps]) => [id, deps.filter((d) => batchIds.has(d))]));
      const cycle = findCycle(internal);
      if (cycle) throw new SynapseError('usage', `dependency cycle refused: ${cycle.map(shortId).join(' → ')}`, { cycle });

      const now = iso(this.clock.now());
      const insert = db.prepare(
        `INSERT INTO tasks (id, subject, description, status, priority, created_by, assignee, group_id, group_title,
                            plan_id, component, milestone, external_ref, a2a_task_id, created_at, updated_at)
         VALUES (@id, @subject, @description, 'pending', @priority, @created_by, @assignee, @group_id, @group_title,
                 @plan_id, @component, @milestone, @external_ref, @a2a_task_id, @now, @now)`,
      );
      for (const t of prepared) {
        const { blocked_by: _deps, ...row } = t;
        insert.run({ ...row, now });
      }
      const dep = db.prepare(`INSERT INTO task_deps (task_id, blocked_by) VALUES (?, ?)`);
      for (const [id, deps] of edges) for (const d of deps) dep.run(id, d);
      return prepared.map((t) => this.load(db, t.id));
    });
  }

  assign(idOrPrefix: string, agent: string): BoardTask {
    const who = requireName(agent, 'agent');
    return this.store.write((db) => {
      const id = resolve(db, idOrPrefix);
      db.prepare(`UPDATE tasks SET assignee = ?, updated_at = ? WHERE id = ?`).run(who, iso(this.clock.now()), id);
      return this.load(db, id);
    });
  }

  /**
   * Claims a pending, unblocked task for `agent`. Claiming your own claim again is a no-op;
   * anything else (claimed by another, finished, blocked) is an error that says why and by whom.
   */
  claim(idOrPrefix: string, agent: string): BoardTask {
    const who = requireName(agent, 'agent');
    // Fast refusal from a plain read: a task already claimed by someone else or finished
    // cannot become claimable again except by a reopen, so losing racers need not queue for
    // the write lock just to learn that. The decision to grant a claim is only ever made
    // below, under BEGIN IMMEDIATE.
    // The refusal needs the row alone, not its dependencies.
    const seen = this.store.run((db) => db.prepare(`SELECT * FROM tasks WHERE id = ?`).get(resolve(db, idOrPrefix)) as TaskRow);
    if (FINISHED.has(seen.status) || (seen.status === 'in_progress' && seen.claimed_by !== who)) {
      throw refusal({ ...seen, blocked_by: [], blocked: false });
    }
    return this.store.write((db) => this.claimIn(db, seen.id, who));
  }

  /** Marks a task completed and reports which dependants became claimable. */
  complete(idOrPrefix: string, options: { by?: string } = {}): CompleteResult {
    return this.store.write((db) => this.completeIn(db, resolve(db, idOrPrefix), options.by ?? null, false));
  }

  fail(idOrPrefix: string, reason: string): BoardTask {
    const why = requireText(reason, 'fail reason', 2000);
    return this.store.write((db) => this.failIn(db, resolve(db, idOrPrefix), why));
  }

  /** Puts a claimed or finished task back to pending, releasing its claim. */
  reopen(idOrPrefix: string): BoardTask {
    return this.store.write((db) => {
      const task = this.load(db, resolve(db, idOrPrefix));
      if (task.status === 'pending') throw reopenRefusal(task);
      db.prepare(`UPDATE tasks SET status = 'pending', claimed_by = NULL, fail_reason = NULL, completed_at = NULL, updated_at = ? WHERE id = ?`).run(
        iso(this.clock.now()),
        task.id,
      );
      return this.load(db, task.id);
    });
  }

  /**
   * Deletes old tasks of the given statuses. A task that an unfinished task (outside the
   * purge) still waits for is kept, so purging never silently unblocks work.
   */
  purge(options: PurgeOptions): PurgeResult {
    if (options.statuses.length === 0) throw new SynapseError('usage', 'purge needs at least one status');
    return this.store.write((db) => {
      const cutoff = iso(this.clock.now() - (options.olderThanMs ?? 0));
      const rows = db
        .prepare(`SELECT * FROM tasks WHERE status IN (SELECT value FROM json_each(?)) AND COALESCE(completed_at, updated_at) <= ? ORDER BY created_at`)
        .all(JSON.stringify(options.statuses), cutoff) as TaskRow[];
      const candidates = new Set(rows.map((r) => r.id));
      const waiting = new Map<string, string[]>();
      const waitersOf = db.prepare(
        `SELECT d.task_id AS id FROM task_deps d JOIN tasks t ON t.id = d.task_id WHERE d.blocked_by = ? AND t.status IN ('pending', 'in_progress')`,
      );
      // Repeat until stable: keeping one task may force keeping the tasks it waits for.
      for (let changed = true; changed;) {
        changed = false;
        for (const id of candidates) {
          const live = (waitersOf.all(id) as { id: string }[]).map((r) => r.id).filter((w) => !candidates.has(w));
          if (live.length > 0) {
            candidates.delete(id);
            waiting.set(id, live);
            changed = true;
          }
        }
      }
      const all = withDeps(db, rows);
      const purged = all.filter((t) => candidates.has(t.id));
      const skipped = all.filter((t) => waiting.has(t.id)).map((task) => ({ task, waiting: waiting.get(task.id) ?? [] }));
      if (!options.dryRun) {
        const del = db.prepare(`DELETE FROM tasks WHERE id = ?`);
        for (const t of purged) del.run(t.id);
      }
      return { purged, skipped, dry_run: options.dryRun ?? false };
    });
  }

  // ── A2A links (used by `synapse send --task` and the agent runtime) ─────────────────────

  /** Links an existing board task to an A2A task id (when the id is known only after sending). */
  linkA2aTask(idOrPrefix: string, a2aTaskId: string): BoardTask {
    const link = requireName(a2aTaskId, 'a2a_task_id');
    return this.store.write((db) => {
      const id = resolve(db, idOrPrefix);
      const other = db.prepare(`SELECT id FROM tasks WHERE a2a_task_id = ? AND id <> ?`).get(link, id) as { id: string } | undefined;
      if (other) throw new SynapseError('conflict', `A2A task ${link} is already linked to board task ${other.id}`, { a2a_task_id: link, task_id: other.id });
      db.prepare(`UPDATE tasks SET a2a_task_id = ?, updated_at = ? WHERE id = ?`).run(link, iso(this.clock.now()), id);
      return this.load(db, id);
    });
  }

  /**
   * The linked A2A task started: claim its board task for `agent` when it is pending and
   * unblocked. Otherwise (already claimed, finished, blocked) the task is returned unchanged,
   * because the A2A work runs regardless. Null when no board task is linked.
   */
  claimByA2aTask(a2aTaskId: string, agent: string): BoardTask | null {
    const who = requireName(agent, 'agent');
    return this.store.write((db) => {
      const id = linkedId(db, a2aTaskId);
      if (id === null) return null;
      const task = this.load(db, id);
      if (task.status !== 'pending' || task.blocked) return task;
      return this.claimIn(db, id, who);
    });
  }

  /** The linked A2A task completed. Finished board tasks stay as they are; null when unlinked. */
  completeByA2aTask(a2aTaskId: string): CompleteResult | null {
    return this.store.write((db) => {
      const id = linkedId(db, a2aTaskId);
      if (id === null) return null;
      const task = this.load(db, id);
      if (FINISHED.has(task.status)) return { task, unblocked: [] };
      // The work was really done, so record it even if the task's blockers are unfinished.
      return this.completeIn(db, id, task.assignee, true);
    });
  }

  /** The linked A2A task failed or was canceled. Finished board tasks stay as they are. */
  failByA2aTask(a2aTaskId: string, reason: string): BoardTask | null {
    const why = requireText(reason || 'A2A task failed', 'fail reason', 2000);
    return this.store.write((db) => {
      const id = linkedId(db, a2aTaskId);
      if (id === null) return null;
      const task = this.load(db, id);
      if (FINISHED.has(task.status)) return task;
      return this.failIn(db, id, why);
    });
  }

  // ── internals (run inside a transaction) ─────────────────────────────────────────────────

  private claimIn(db: Sql, id: string, who: string): BoardTask {
    const task = this.load(db, id);
    if (task.status === 'in_progress' && task.claimed_by === who) return task;
    if (task.status !== 'pending') throw refusal(task);
    const blockers = unfinishedBlockers(db, id);
    if (blockers.length > 0) throw blockedRefusal(id, blockers);
    const now = iso(this.clock.now());
    db.prepare(`UPDATE tasks SET status = 'in_progress', claimed_by = ?, assignee = COALESCE(assignee, ?), updated_at = ? WHERE id = ?`).run(who, who, now, id);
    return this.load(db, id);
  }

  private completeIn(db: Sql, id: string, by: string | null, force: boolean): CompleteResult {
    const task = this.load(db, id);
    if (FINISHED.has(task.status)) throw completeRefusal(task);
    if (!force && task.blocked) throw blockedCompletion(id, unfinishedBlockers(db, id));
    const now = iso(this.clock.now());
    db.prepare(
      `UPDATE tasks SET status = 'completed', claimed_by = COALESCE(claimed_by, ?), fail_reason = NULL, completed_at = ?, updated_at = ? WHERE id = ?`,
    ).run(by, now, now, id);
    const waiting = db
      .prepare(
        `SELECT t.* FROM task_deps d JOIN tasks t ON t.id = d.task_id WHERE d.blocked_by = ? AND t.status = 'pending' ORDER BY t.priority DESC, t.created_at`,
      )
      .all(id) as TaskRow[];
    const unblocked = withDeps(db, waiting).filter((t) => !t.blocked);
    return { task: this.load(db, id), unblocked };
  }

  private failIn(db: Sql, id: string, why: string): BoardTask {
    const task = this.load(db, id);
    if (FINISHED.has(task.status)) throw failRefusal(task);
    const now = iso(this.clock.now());
    db.prepare(`UPDATE tasks SET status = 'failed', fail_reason = ?, completed_at = ?, updated_at = ? WHERE id = ?`).run(why, now, now, id);
    return this.load(db, id);
  }

  private load(db: Sql, id: string): BoardTask {
    const row = db.prepare(`SELECT * FROM tasks WHERE id = ?`).get(id) as TaskRow | undefined;
    if (!row) throw new SynapseError('task_not_found', `no task ${id} on the board`, { id });
    return withDeps(db, [row])[0]!;
  }
}
