import type { Migration } from './sqlite.js';

/**
 * Task board schema. v1 holds the data; v2 adds the indexes the board's queries rely on and
 * makes an A2A task link unique (older files could hold a duplicated link; the later rows
 * lose it, since an A2A task can only drive one board task).
 */
export const BOARD_MIGRATIONS: Migration[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE tasks (
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
      CREATE TABLE task_deps (
        task_id    TEXT NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
        blocked_by TEXT NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
        PRIMARY KEY (task_id, blocked_by),
        CHECK (task_id <> blocked_by)
      );
    `,
  },
  {
    version: 2,
    sql: `
      CREATE INDEX tasks_by_status ON tasks(status, priority DESC, created_at);
      CREATE INDEX tasks_by_assignee ON tasks(assignee) WHERE assignee IS NOT NULL;
      CREATE INDEX tasks_by_group ON tasks(group_id) WHERE group_id IS NOT NULL;
      CREATE INDEX tasks_by_component ON tasks(component) WHERE component IS NOT NULL;
      CREATE INDEX tasks_by_milestone ON tasks(milestone) WHERE milestone IS NOT NULL;
      CREATE INDEX task_deps_by_blocker ON task_deps(blocked_by);
      UPDATE tasks SET a2a_task_id = NULL
        WHERE a2a_task_id IS NOT NULL
          AND rowid NOT IN (SELECT MIN(rowid) FROM tasks WHERE a2a_task_id IS NOT NULL GROUP BY a2a_task_id);
      CREATE UNIQUE INDEX tasks_by_a2a_task ON tasks(a2a_task_id) WHERE a2a_task_id IS NOT NULL;
    `,
  },
];

export const TASK_STATUSES = ['pending', 'in_progress', 'completed', 'failed'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

/** A row of `tasks` as stored. */
export interface TaskRow {
  id: string;
  subject: string;
  description: string;
  status: TaskStatus;
  priority: number;
  created_by: string | null;
  assignee: string | null;
  claimed_by: string | null;
  group_id: string | null;
  group_title: string | null;
  plan_id: string | null;
  component: string | null;
  milestone: string | null;
  external_ref: string | null;
  a2a_task_id: string | null;
  fail_reason: string | null;
  created_at: string;
  updated_at: string;
  completed_at: string | null;
}

/** A task as the board hands it out: the row plus its dependencies. */
export interface BoardTask extends TaskRow {
  /** Ids of the tasks this one waits for. */
  blocked_by: string[];
  /** True while any `blocked_by` task is not completed. */
  blocked: boolean;
}

/** What a caller may set when creating a task. */
export interface NewTask {
  /** Optional client-chosen uuid, so a batch (a plan) can reference its own tasks. */
  id?: string;
  subject: string;
  description?: string;
  priority?: number;
  created_by?: string | null;
  assignee?: string | null;
  /** Ids or unique prefixes of existing tasks, or exact ids of tasks in the same batch. */
  blocked_by?: string[];
  group_id?: string | null;
  group_title?: string | null;
  plan_id?: string | null;
  component?: string | null;
  milestone?: string | null;
  external_ref?: string | null;
  a2a_task_id?: string | null;
}

export interface TaskFilter {
  status?: TaskStatus[];
  /** Matches `assignee` or `claimed_by` against any of these. */
  assignee?: string[];
  group_id?: string;
  component?: string;
  milestone?: string;
  plan_id?: string;
}

export const TASK_GROUP_FIELDS = ['group_id', 'component', 'milestone', 'status'] as const;
export type TaskGroupField = (typeof TASK_GROUP_FIELDS)[number];
