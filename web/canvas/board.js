// The task board: by status (columns), by group or by component (sections). Which tasks are
// expanded is kept across live updates.
import { el, markdown } from './lib.js';

const expanded = new Set();
const STATUSES = ['pending', 'in_progress', 'completed', 'failed'];

function taskCard(t, all) {
  const open = expanded.has(t.id);
  const who = t.claimed_by_name ?? t.claimed_by ?? t.assignee_name ?? t.assignee;
  const node = el(
    'div',
    { class: `task ${t.status}${t.blocked ? ' blocked' : ''}`, 'data-task-id': t.id, 'data-status': t.status },
    el(
      'button',
      {
        type: 'button',
        class: 'task-head',
        'aria-expanded': String(open),
        onclick: () => {
          if (expanded.has(t.id)) expanded.delete(t.id);
          else expanded.add(t.id);
          node.replaceWith(taskCard(t, all));
        },
      },
      el('span', { class: `badge ${t.status}`, text: t.blocked && t.status === 'pending' ? 'blocked' : t.status.replace('_', ' ') }),
      el('span', { class: 'subject', text: t.subject }),
      el('span', { class: 'muted', text: `P${t.priority}${who ? ` · ${who}` : ''}` }),
    ),
  );
  if (open) {
    const details = el('div', { class: 'task-details' });
    if (t.description) details.append(markdown(t.description));
    const names = new Map(all.map((x) => [x.id, x.subject]));
    details.append(
      el(
        'dl',
        {},
        el('dt', { text: 'id' }),
        el('dd', { class: 'mono', text: t.id }),
        t.group_id ? [el('dt', { text: 'group' }), el('dd', { text: t.group_title ?? t.group_id })] : null,
        t.component ? [el('dt', { text: 'component' }), el('dd', { text: t.component })] : null,
        t.blocked_by.length ? [el('dt', { text: 'after' }), el('dd', { text: t.blocked_by.map((b) => names.get(b) ?? b.slice(0, 8)).join(', ') })] : null,
        t.fail_reason ? [el('dt', { text: 'failed' }), el('dd', { text: t.fail_reason })] : null,
      ),
    );
    node.append(details);
  }
  return node;
}

function column(title, tasks, all, key) {
  return el(
    'section',
    { class: 'column', 'data-column': key },
    el('h3', {}, title, el('span', { class: 'muted', text: ` ${tasks.length}` })),
    tasks.map((t) => taskCard(t, all)),
  );
}

export function renderBoard(tasks) {
  const box = document.getElementById('board');
  const view = document.getElementById('board-view').value;
  document.getElementById('board-count').textContent = `${tasks.length} task(s)`;
  if (tasks.length === 0) {
    box.replaceChildren(el('p', { class: 'muted', text: 'The board is empty. Add a task: synapse tasks create "Write the parser"' }));
    return;
  }
  box.className = `board ${view}`;
  if (view === 'status') {
    box.replaceChildren(
      ...STATUSES.map((s) =>
        column(
          s.replace('_', ' '),
          tasks.filter((t) => t.status === s),
          tasks,
          s,
        ),
      ),
    );
    return;
  }
  const field = view === 'group' ? 'group_id' : 'component';
  const groups = new Map();
  for (const t of tasks) {
    const k = t[field] ?? '';
    if (!groups.has(k)) groups.set(k, []);
    groups.get(k).push(t);
  }
  const keys = [...groups.keys()].sort((a, b) => (a === '' ? 1 : b === '' ? -1 : a.localeCompare(b)));
  box.replaceChildren(
    ...keys.map((k) => {
      const list = groups.get(k);
      const title = k === '' ? `no ${view}` : view === 'group' ? (list.find((t) => t.group_title)?.group_title ?? k) : k;
      return column(title, list, tasks, k);
    }),
  );
}
