// The Canvas dashboard: five views over one live connection. After every (re)connect it
// refetches what it shows (resync); between, the server's events keep it current.
import { api, el, theme, timeAgo, toast } from './lib.js';
import { renderBody, syncFrameTheme } from './cards.js';
import { renderBoard } from './board.js';
import { setupControl, updateControlAgents } from './control.js';

const CARD_TYPES = [
  'markdown',
  'mermaid',
  'table',
  'chart',
  'code',
  'html',
  'diff',
  'image',
  'link',
  'progress',
  'terminal',
  'dependency-graph',
  'cost',
  'briefing',
  'comparison',
  'dashboard',
  'steps',
  'slides',
  'plan',
];

const state = { cards: new Map(), agents: [], tasks: [], view: 'cards' };
const $ = (id) => document.getElementById(id);

// ── cards ────────────────────────────────────────────────────────────────────────────────────

function cardMatches(card) {
  const agent = $('filter-agent').value;
  const type = $('filter-type').value;
  return (!agent || card.agent_id === agent || card.agent_name === agent) && (!type || card.type === type);
}

function cardElement(card) {
  const body = el('div', { class: 'card-body', 'data-card-id': card.id });
  const node = el(
    'article',
    { class: `card type-${card.type}`, 'data-card-id': card.id, 'data-card-type': card.type, 'data-updated': card.updated_at },
    el(
      'header',
      {},
      el('span', { class: 'badge type', text: card.type }),
      el('h2', { text: card.title || card.type }),
      el('span', { class: 'spacer' }),
      el('span', { class: 'muted', title: card.updated_at, text: `${card.agent_name ?? card.agent_id} · ${timeAgo(card.updated_at)}` }),
      el('button', {
        type: 'button',
        class: 'icon',
        title: 'delete this card',
        text: '×',
        onclick: () => api(`/api/cards/${encodeURIComponent(card.id)}`, { method: 'DELETE' }).catch((e) => toast(e.message, 'error')),
      }),
    ),
    body,
  );
  renderBody(body, card.type, card.body)
    .then(() => (node.dataset.rendered = '1'))
    .catch((err) => {
      body.append(el('pre', { class: 'error', text: String(err?.message ?? err) }));
      node.dataset.rendered = 'error';
    });
  return node;
}

/** Puts the cards in order (newest first), re-rendering only those that changed. */
function renderCards() {
  const list = $('cards');
  const shown = [...state.cards.values()].filter(cardMatches).sort((a, b) => b.updated_at.localeCompare(a.updated_at) || b.id.localeCompare(a.id));
  const existing = new Map([...list.children].map((n) => [n.dataset.cardId, n]));
  const nodes = shown.map((c) => {
    const old = existing.get(c.id);
    return old && old.dataset.updated === c.updated_at ? old : cardElement(c);
  });
  const keep = new Set(nodes);
  for (const n of existing.values()) if (!keep.has(n)) n.remove();
  nodes.forEach((n, i) => {
    if (list.children[i] !== n) list.insertBefore(n, list.children[i] ?? null);
  });
  $('card-count').textContent = `${shown.length} of ${state.cards.size} card(s)`;
  if (state.cards.size === 0) list.replaceChildren(el('p', { class: 'empty muted', text: 'No cards yet. Post one: synapse canvas markdown "# Hello"' }));
  else list.querySelector('.empty')?.remove();
  updateAgentFilter();
}

function updateAgentFilter() {
  const select = $('filter-agent');
  const current = select.value;
  const authors = new Map();
  for (const c of state.cards.values()) authors.set(c.agent_id, c.agent_name ?? c.agent_id);
  const want = ['', ...[...authors.keys()].sort()];
  if ([...select.options].map((o) => o.value).join('\n') === want.join('\n')) return;
  select.replaceChildren(
    el('option', { value: '', text: 'all' }),
    ...[...authors].map(([id, name]) => el('option', { value: id, text: name === id ? id : `${name} (${id})` })),
  );
  select.value = authors.has(current) ? current : '';
}

async function loadCards() {
  const search = $('filter-search').value.trim();
  const q = new URLSearchParams({ limit: '500', ...(search ? { search } : {}) });
  const { cards } = await api(`/api/cards?${q}`);
  state.cards = new Map(cards.map((c) => [c.id, c]));
  renderCards();
}

// ── agents ───────────────────────────────────────────────────────────────────────────────────

function renderAgents() {
  const tbody = $('agents').querySelector('tbody');
  if (state.agents.length === 0) {
    tbody.replaceChildren(el('tr', {}, el('td', { colspan: '7', class: 'muted', text: 'No agent is running. Start one: synapse start echo --name alice' })));
  } else {
    tbody.replaceChildren(
      ...state.agents.map((a) =>
        el(
          'tr',
          { 'data-agent-id': a.agent_id, title: 'double-click to jump to its pane', ondblclick: () => jump(a) },
          el('td', { text: a.name ?? '-' }),
          el('td', { class: 'mono', text: a.agent_id }),
          el('td', { text: a.agent_type }),
          el('td', { text: a.role ?? '-' }),
          el('td', {}, el('span', { class: `status ${a.status.toLowerCase()}`, text: a.status })),
          el('td', { text: a.current_task_preview ? `${a.current_task_preview}${a.task_received_at ? ` (${timeAgo(a.task_received_at)})` : ''}` : '-' }),
          el('td', { class: 'mono', text: a.working_dir }),
        ),
      ),
    );
  }
  updateControlAgents(state.agents);
}

async function jump(agent) {
  try {
    const { message } = await api(`/api/agents/${encodeURIComponent(agent.agent_id)}/jump`, { method: 'POST' });
    toast(message);
  } catch (err) {
    toast(`${err.message} — talk to it here instead`, 'error');
    $('control-agent').value = agent.agent_id;
    location.hash = '#control';
  }
}

// ── history ──────────────────────────────────────────────────────────────────────────────────

async function loadHistory() {
  const q = $('history-q').value.trim();
  const { entries } = await api(`/api/history?${new URLSearchParams({ limit: '100', ...(q ? { q } : {}) })}`);
  $('history-count').textContent = `${entries.length} task(s)`;
  $('history').replaceChildren(
    ...(entries.length === 0
      ? [el('p', { class: 'muted', text: q ? `Nothing matches "${q}".` : 'No finished tasks recorded yet.' })]
      : entries.map((e) =>
          el(
            'details',
            { class: 'history-entry' },
            el(
              'summary',
              {},
              el('span', { class: `status ${e.status}`, text: e.status }),
              ' ',
              el('strong', { text: e.agent_name ?? e.agent_id }),
              el('span', { class: 'muted', text: ` · ${timeAgo(e.finished_at)} · ` }),
              e.input.split('\n')[0].slice(0, 120),
            ),
            el('div', { class: 'muted', text: `from ${e.sender_name ?? e.sender_id ?? 'a person'} · task ${e.task_id}` }),
            el('h4', { text: 'Asked' }),
            el('pre', { class: 'wrap', text: e.input }),
            el('h4', { text: 'Answered' }),
            el('pre', { class: 'wrap', text: e.output || '(no answer)' }),
          ),
        )),
  );
}

// ── live connection ──────────────────────────────────────────────────────────────────────────

let backoff = 500;
function connect() {
  const ws = new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`);
  const conn = $('conn');
  ws.onopen = () => {
    backoff = 500;
    conn.textContent = 'live';
    conn.className = 'conn live';
    resync().catch((err) => toast(`resync failed: ${err.message}`, 'error'));
  };
  ws.onmessage = (event) => {
    let msg;
    try {
      msg = JSON.parse(event.data);
    } catch {
      return;
    }
    if (msg.type === 'card') {
      state.cards.set(msg.card.id, msg.card);
      renderCards();
    } else if (msg.type === 'card_deleted') {
      state.cards.delete(msg.id);
      renderCards();
    } else if (msg.type === 'cards_changed') {
      loadCards().catch(() => undefined);
    } else if (msg.type === 'agents') {
      state.agents = msg.agents;
      renderAgents();
    } else if (msg.type === 'board') {
      state.tasks = msg.tasks;
      renderBoard(state.tasks);
    }
  };
  ws.onclose = () => {
    conn.textContent = 'reconnecting…';
    conn.className = 'conn down';
    setTimeout(connect, backoff);
    backoff = Math.min(backoff * 2, 5000);
  };
  ws.onerror = () => ws.close();
}

async function resync() {
  const [, agents, board] = await Promise.all([loadCards(), api('/api/agents'), api('/api/board')]);
  state.agents = agents.agents;
  state.tasks = board.tasks;
  renderAgents();
  renderBoard(state.tasks);
  if (state.view === 'history') await loadHistory();
  document.body.dataset.ready = '1';
}

// ── views, theme ─────────────────────────────────────────────────────────────────────────────

function showView() {
  const view = (location.hash || '#cards').slice(1);
  state.view = ['cards', 'agents', 'board', 'history', 'control'].includes(view) ? view : 'cards';
  for (const s of document.querySelectorAll('.view')) s.hidden = s.id !== `view-${state.view}`;
  for (const a of document.querySelectorAll('.tabs a')) a.setAttribute('aria-selected', String(a.dataset.view === state.view));
  if (state.view === 'history') loadHistory().catch((err) => toast(err.message, 'error'));
}

function applyTheme(next) {
  document.documentElement.dataset.theme = next;
  try {
    localStorage.setItem('synapse-canvas-theme', next);
  } catch {
    // private mode: the theme lasts for this page
  }
  $('hljs-theme').href = `/vendor/hljs-styles/${next === 'dark' ? 'github-dark' : 'github'}.min.css`;
  syncFrameTheme();
  // Diagrams and charts take their colours when drawn: draw them again.
  for (const n of [...$('cards').children]) if (n.dataset.cardType && n.dataset.cardType !== 'html') n.dataset.updated = '';
  renderCards();
}

function init() {
  $('filter-type').append(...CARD_TYPES.map((t) => el('option', { value: t, text: t })));
  $('filter-agent').addEventListener('change', renderCards);
  $('filter-type').addEventListener('change', renderCards);
  let searchTimer = null;
  $('filter-search').addEventListener('input', () => {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(() => loadCards().catch((err) => toast(err.message, 'error')), 250);
  });
  $('history-form').addEventListener('submit', (e) => {
    e.preventDefault();
    loadHistory().catch((err) => toast(err.message, 'error'));
  });
  $('board-view').addEventListener('change', () => renderBoard(state.tasks));
  $('theme-toggle').addEventListener('click', () => applyTheme(theme() === 'dark' ? 'light' : 'dark'));
  $('hljs-theme').href = `/vendor/hljs-styles/${theme() === 'dark' ? 'github-dark' : 'github'}.min.css`;
  window.addEventListener('hashchange', showView);
  setupControl();
  showView();
  connect();
}

init();
