import { TERMINAL_STATES, type Task, type TaskState } from '../agent-api/task.js';
import { redactDeep, secretRedactor, type Redactor } from '../redact.js';
import { SynapseError } from '../errors.js';
import { AGENT_DB_MIGRATIONS } from './agent-db-migrations.js';
import { openDatabase, type Db } from './sqlite.js';

/**
 * An agent's own tasks and inbox, in its SQLite file, so queued messages and finished tasks
 * outlive a restart. The inbox is just the tasks still `submitted`, by priority then arrival.
 */
export class AgentTaskStore {
  /** The agent's SQLite file, shared with the other per-agent stores (webhooks). */
  readonly db: Db;
  private readonly stmts;

  /**
   * A finished task is kept with credentials redacted (issue 21 §4): a queued one must keep its
   * text to be typed in, but once done the record needs none of it. The live events and answers
   * carry the task as it was.
   */
  private readonly redact: Redactor;

  constructor(
    readonly file: string,
    options: { redact?: Redactor } = {},
  ) {
    this.redact = options.redact ?? secretRedactor({});
    this.db = openDatabase(file, AGENT_DB_MIGRATIONS);
    this.stmts = {
      insert: this.db.prepare('INSERT INTO tasks (id, state, priority, created_at, updated_at, body) VALUES (?, ?, ?, ?, ?, ?)'),
      update: this.db.prepare('UPDATE tasks SET state = ?, priority = ?, updated_at = ?, body = ? WHERE id = ?'),
      get: this.db.prepare('SELECT body FROM tasks WHERE id = ?'),
      prefix: this.db.prepare("SELECT body FROM tasks WHERE id LIKE ? || '%' ESCAPE '\\' LIMIT 11"),
      queued: this.db.prepare("SELECT body FROM tasks WHERE state = 'submitted' ORDER BY priority DESC, seq ASC"),
      list: this.db.prepare('SELECT body FROM tasks ORDER BY seq DESC LIMIT ?'),
      listState: this.db.prepare('SELECT body FROM tasks WHERE state = ? ORDER BY seq DESC LIMIT ?'),
      inState: this.db.prepare('SELECT body FROM tasks WHERE state = ?'),
    };
  }

  insert(task: Task): void {
    this.stmts.insert.run(task.id, task.status.state, task.priority, task.created_at, task.updated_at, this.body(task));
  }

  save(task: Task): void {
    this.stmts.update.run(task.status.state, task.priority, task.updated_at, this.body(task), task.id);
    // The versions written while it ran (the text in the clear) leave the write-ahead log now.
    if (TERMINAL_STATES.has(task.status.state)) this.db.pragma('wal_checkpoint(TRUNCATE)');
  }

  private body(task: Task): string {
    return JSON.stringify(TERMINAL_STATES.has(task.status.state) ? redactDeep(task, this.redact) : task);
  }

  get(id: string): Task | null {
    const row = this.stmts.get.get(id) as { body: string } | undefined;
    return row ? (JSON.parse(row.body) as Task) : null;
  }

  /** Full id or unique prefix (at least 4 characters). */
  find(idOrPrefix: string): Task {
    const exact = this.get(idOrPrefix);
    if (exact) return exact;
    if (idOrPrefix.length >= 4) {
      const escaped = idOrPrefix.replace(/[\\%_]/g, (c) => `\\${c}`);
      const rows = this.stmts.prefix.all(escaped) as Array<{ body: string }>;
      if (rows.length === 1) return JSON.parse(rows[0]!.body) as Task;
      if (rows.length > 1) {
        const ids = rows.map((r) => (JSON.parse(r.body) as Task).id);
        throw new SynapseError('ambiguous_task', `task prefix "${idOrPrefix}" matches several tasks: ${ids.join(', ')}`, { candidates: ids });
      }
    }
    throw new SynapseError('task_not_found', `no task "${idOrPrefix}" on this agent`);
  }

  queued(): Task[] {
    return (this.stmts.queued.all() as Array<{ body: string }>).map((r) => JSON.parse(r.body) as Task);
  }

  inState(state: TaskState): Task[] {
    return (this.stmts.inState.all(state) as Array<{ body: string }>).map((r) => JSON.parse(r.body) as Task);
  }

  /** Newest first, at most `limit` (default 100), of one state and one context when given. */
  list(options: { state?: TaskState; contextId?: string; limit?: number } = {}): Task[] {
    const limit = options.limit ?? 100;
    let rows: unknown[];
    if (options.contextId === undefined) rows = options.state ? this.stmts.listState.all(options.state, limit) : this.stmts.list.all(limit);
    else {
      const state = options.state ? 'AND state = ?' : '';
      const sql = `SELECT body FROM tasks WHERE json_extract(body, '$.context_id') = ? ${state} ORDER BY seq DESC LIMIT ?`;
      rows = this.db.prepare(sql).all(...[options.contextId, ...(options.state ? [options.state] : []), limit]);
    }
    return (rows as Array<{ body: string }>).map((r) => JSON.parse(r.body) as Task);
  }

  close(): void {
    this.db.close();
  }
}
