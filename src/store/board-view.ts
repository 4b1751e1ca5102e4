import type { BoardTask, TaskGroupField } from './board-schema.js';

/**
 * How the board is shown, shared by `synapse tasks list` and `GET /tasks/board?format=table`
 * so both print the same thing. Agent ids are shown as names when the registry knows them.
 */

export interface TaskGroup {
  key: string | null;
  /** `group_title` for group_id groups; otherwise the key. */
  title: string | null;
  tasks: BoardTask[];
}

/** A task as shown to people and JSON clients: the stored task plus resolved names. */
export type ViewTask = BoardTask & { assignee_name: string | null; claimed_by_name: string | null };

export function withNames(task: BoardTask, names: Map<string, string>): ViewTask {
  return {
    ...task,
    assignee_name: task.assignee ? (names.get(task.assignee) ?? null) : null,
    claimed_by_name: task.claimed_by ? (names.get(task.claimed_by) ?? null) : null,
  };
}

/** Groups in order of first appearance (the list is already sorted); tasks without a value last. */
export function groupTasks(tasks: BoardTask[], by: TaskGroupField): TaskGroup[] {
  const groups = new Map<string | null, TaskGroup>();
  for (const t of tasks) {
    const key = t[by];
    let g = groups.get(key);
    if (!g) {
      g = { key, title: key, tasks: [] };
      groups.set(key, g);
    }
    if (by === 'group_id' && g.title === key && t.group_title) g.title = t.group_title;
    g.tasks.push(t);
  }
  const out = [...groups.values()];
  return [...out.filter((g) => g.key !== null), ...out.filter((g) => g.key === null)];
}

function who(id: string | null, names: Map<string, string>, verbose: boolean): string {
  if (!id) return '-';
  const name = names.get(id);
  if (!name) return id;
  return verbose ? `${name} (${id})` : name;
}

function oneLine(text: string | null, max: number): string {
  if (!text) return '-';
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** `blocked` reads better than `pending` for a task nobody can start yet. */
function displayStatus(t: BoardTask): string {
  return t.status === 'pending' && t.blocked ? 'blocked' : t.status;
}

function boardRows(tasks: BoardTask[], names: Map<string, string>, verbose: boolean): { headers: string[]; rows: string[][] } {
  const short = (id: string) => (verbose ? id : id.slice(0, 8));
  const headers = ['ID', 'STATUS', 'PRI', 'SUBJECT', 'ASSIGNEE', 'BLOCKED BY'];
  if (verbose) headers.push('GROUP', 'COMPONENT', 'MILESTONE', 'CREATED BY', 'UPDATED', 'DETAILS');
  const rows = tasks.map((t) => {
    const row = [
      short(t.id),
      displayStatus(t),
      String(t.priority),
      oneLine(t.subject, verbose ? 80 : 50),
      who(t.claimed_by ?? t.assignee, names, verbose),
      t.blocked_by.length ? t.blocked_by.map((b) => b.slice(0, 8)).join(',') : '-',
    ];
    if (verbose) {
      row.push(
        t.group_id ? (t.group_title ? `${t.group_id} (${t.group_title})` : t.group_id) : '-',
        t.component ?? '-',
        t.milestone ?? '-',
        who(t.created_by, names, true),
        t.updated_at,
        oneLine(t.status === 'failed' ? `failed: ${t.fail_reason ?? ''}` : t.description, 60),
      );
    }
    return row;
  });
  return { headers, rows };
}

/** Left-aligned columns with a header row. */
function renderColumns(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(headers), ...rows.map(line)].join('\n');
}

export function renderBoard(tasks: BoardTask[], names: Map<string, string>, options: { groupBy?: TaskGroupField; verbose?: boolean } = {}): string {
  if (tasks.length === 0) return 'No tasks on the board. Create one with: synapse tasks create "subject"';
  const table = (list: BoardTask[]) => {
    const { headers, rows } = boardRows(list, names, options.verbose ?? false);
    return renderColumns(headers, rows);
  };
  if (!options.groupBy) return table(tasks);
  return groupTasks(tasks, options.groupBy)
    .map((g) => {
      const label = g.key === null ? `(no ${options.groupBy})` : g.title && g.title !== g.key ? `${g.key}: ${g.title}` : g.key;
      const done = g.tasks.filter((t) => t.status === 'completed').length;
      return `== ${label} (${done}/${g.tasks.length} completed) ==\n${table(g.tasks)}`;
    })
    .join('\n\n');
}
