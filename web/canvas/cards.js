// One renderer per card type: each fills a container from a card body the server has validated.
// Text from a card only ever becomes text nodes, sanitised HTML (DOMPurify), or content of the
// sandboxed html frame.
import hljs from '/vendor/hljs/highlight.min.js';
import { el, loadScript, markdown, sanitizeDocument, sanitizeSvg, theme } from './lib.js';
import { renderAnsi } from './ansi.js';
import { sideBySide } from './diff.js';

let mermaidReady = null;
let mermaidTheme = null;
let mermaidSeq = 0;

async function mermaidLib() {
  mermaidReady ??= loadScript('/vendor/mermaid/mermaid.min.js');
  await mermaidReady;
  const t = theme();
  if (mermaidTheme !== t) {
    window.mermaid.initialize({
      startOnLoad: false,
      securityLevel: 'strict',
      theme: t === 'dark' ? 'dark' : 'default',
      htmlLabels: false,
      flowchart: { htmlLabels: false },
    });
    mermaidTheme = t;
  }
  return window.mermaid;
}

// Renders one at a time: mermaid keeps global state while it lays a diagram out.
let mermaidQueue = Promise.resolve();
function mermaidInto(container, source) {
  const box = el('div', { class: 'mermaid-box' });
  container.append(box);
  const job = mermaidQueue.then(async () => {
    const mermaid = await mermaidLib();
    const id = `mmd-${++mermaidSeq}`;
    try {
      const { svg } = await mermaid.render(id, source);
      box.innerHTML = sanitizeSvg(svg);
    } catch (err) {
      document.getElementById(`d${id}`)?.remove();
      box.replaceChildren(el('pre', { class: 'error', text: `Mermaid: ${err?.message ?? err}` }));
    }
  });
  mermaidQueue = job.catch(() => undefined);
  return job;
}

/** A Mermaid node label: quotes and brackets would end it, so they become entity codes. */
const label = (s) =>
  `"${String(s)
    .replace(/"/g, '#quot;')
    .replace(/[<>]/g, (c) => (c === '<' ? '#lt;' : '#gt;'))}"`;

const STATUS_CLASS = {
  proposed: 'fill:#e5e7eb,stroke:#6b7280,color:#111827',
  active: 'fill:#dbeafe,stroke:#2563eb,color:#1e3a8a',
  completed: 'fill:#dcfce7,stroke:#16a34a,color:#14532d',
  cancelled: 'fill:#fee2e2,stroke:#dc2626,color:#7f1d1d,stroke-dasharray:4',
};

function graphSource(nodes, edges, dir = 'LR') {
  const ids = new Map(nodes.map((n, i) => [n.id, `n${i}`]));
  const lines = [`graph ${dir}`];
  for (const n of nodes) lines.push(`  ${ids.get(n.id)}[${label(n.label ?? n.id)}]`);
  for (const e of edges) {
    if (!ids.has(e.from) || !ids.has(e.to)) continue;
    lines.push(`  ${ids.get(e.from)} -->${e.label ? `|${label(e.label)}|` : ''} ${ids.get(e.to)}`);
  }
  for (const [status, style] of Object.entries(STATUS_CLASS)) lines.push(`  classDef ${status} ${style}`);
  for (const n of nodes) if (n.status && STATUS_CLASS[n.status]) lines.push(`  class ${ids.get(n.id)} ${n.status}`);
  return lines.join('\n');
}

function table(headers, rows) {
  return el(
    'div',
    { class: 'scroll-x' },
    el(
      'table',
      { class: 'grid' },
      el(
        'thead',
        {},
        el(
          'tr',
          {},
          headers.map((h) => el('th', { text: h })),
        ),
      ),
      el(
        'tbody',
        {},
        rows.map((r) =>
          el(
            'tr',
            {},
            r.map((c) => el('td', { text: c === null ? '' : String(c) })),
          ),
        ),
      ),
    ),
  );
}

const charts = new WeakMap();
function chart(container, body) {
  const wrap = el('div', { class: 'chart-box' });
  const canvas = el('canvas');
  wrap.append(canvas);
  container.append(wrap);
  return loadScript('/vendor/chartjs/chart.umd.min.js').then(() => {
    const dark = theme() === 'dark';
    window.Chart.defaults.color = dark ? '#c9d1d9' : '#374151';
    window.Chart.defaults.borderColor = dark ? '#30363d' : '#e5e7eb';
    const c = new window.Chart(canvas, {
      type: body.type,
      data: { labels: body.labels ?? [], datasets: body.datasets.map((d) => ({ label: d.label ?? '', data: d.data })) },
      options: { responsive: true, maintainAspectRatio: false, animation: false },
    });
    charts.set(wrap, c);
  });
}

function code(container, body) {
  const pre = el('pre', { class: 'code' });
  const codeEl = el('code', { class: 'hljs' });
  const lang = body.language && hljs.getLanguage(body.language) ? body.language : null;
  // hljs escapes the source: its output is markup for highlighting only.
  codeEl.innerHTML = lang ? hljs.highlight(body.code, { language: lang }).value : hljs.highlightAuto(body.code).value;
  pre.append(codeEl);
  if (body.filename) container.append(el('div', { class: 'filename', text: body.filename }));
  container.append(pre);
}

const frames = new Set();
/** An html card: sanitised, then shown in a sandboxed frame (scripts may not run, no same origin). */
function html(container, source) {
  const frame = el('iframe', { class: 'html-frame', sandbox: 'allow-scripts', src: '/frame', title: 'html card', referrerpolicy: 'no-referrer' });
  frame._html = sanitizeDocument(source);
  frames.add(frame);
  container.append(frame);
}

window.addEventListener('message', (event) => {
  for (const frame of frames) {
    if (!frame.isConnected) {
      frames.delete(frame);
      continue;
    }
    if (event.source !== frame.contentWindow) continue;
    const d = event.data;
    if (d?.type === 'ready') frame.contentWindow.postMessage({ type: 'render', html: frame._html, theme: theme() }, '*');
    if (d?.type === 'resize' && Number.isFinite(d.height)) frame.style.height = `${Math.min(Math.max(d.height, 40), 4000)}px`;
    return;
  }
});

/** Tells every html frame the new theme. */
export function syncFrameTheme() {
  for (const frame of frames) frame.contentWindow?.postMessage({ type: 'theme', theme: theme() }, '*');
}

function progress(container, b) {
  const max = b.max ?? 100;
  const pct = Math.round((Math.min(b.value, max) / max) * 100);
  container.append(
    el('div', { class: 'progress-label' }, b.label ?? '', el('span', { class: 'muted', text: ` ${b.value} / ${max} (${pct}%)` })),
    el('div', { class: 'progress' }, el('div', { class: 'progress-bar', style: `width:${pct}%` })),
  );
  if (b.steps?.length) {
    const done = Math.floor((b.value / max) * b.steps.length);
    container.append(
      el(
        'ol',
        { class: 'steps' },
        b.steps.map((s, i) => el('li', { class: i < done ? 'done' : i === done ? 'active' : 'pending', text: s })),
      ),
    );
  }
}

function cost(container, b) {
  const cur = b.currency ?? 'USD';
  const total = b.items.reduce((s, i) => s + i.cost, 0);
  const fmt = (n) => `${n.toFixed(n < 1 ? 4 : 2)} ${cur}`;
  const rows = b.items.map((i) =>
    el(
      'tr',
      {},
      el('td', { text: i.label }),
      el('td', { class: 'num', text: i.input_tokens?.toLocaleString() ?? '' }),
      el('td', { class: 'num', text: i.output_tokens?.toLocaleString() ?? '' }),
      el('td', { class: 'num', text: fmt(i.cost) }),
      el('td', {}, el('div', { class: 'share' }, el('div', { style: `width:${total > 0 ? Math.round((i.cost / total) * 100) : 0}%` }))),
    ),
  );
  container.append(
    el(
      'table',
      { class: 'grid' },
      el(
        'thead',
        {},
        el(
          'tr',
          {},
          ['', 'input tokens', 'output tokens', 'cost', 'share'].map((h) => el('th', { text: h })),
        ),
      ),
      el('tbody', {}, rows),
      el('tfoot', {}, el('tr', {}, el('th', { text: 'total' }), el('td'), el('td'), el('th', { class: 'num', text: fmt(total) }), el('td'))),
    ),
  );
}

const STEP_ICON = { pending: '○', active: '◐', done: '●', failed: '✕', skipped: '–', proposed: '○', completed: '●', cancelled: '✕' };

function steps(container, list) {
  container.append(
    el(
      'ol',
      { class: 'steps' },
      list.map((s) =>
        el(
          'li',
          { class: s.status ?? 'pending', 'data-status': s.status ?? 'pending' },
          el('span', { class: 'step-icon', text: STEP_ICON[s.status ?? 'pending'] ?? '○' }),
          el('strong', { text: s.title }),
          s.status ? el('span', { class: `badge ${s.status}`, text: s.status }) : null,
          s.description ? markdown(s.description, 'md small') : null,
        ),
      ),
    ),
  );
}

function section(container, s, jobs) {
  const box = el('div', { class: 'section' });
  if (s.title) box.append(el('h3', { text: s.title }));
  if (s.content) box.append(markdown(s.content));
  if (s.block) jobs.push(renderBody(box, s.block.type, s.block.body));
  container.append(box);
  return box;
}

function slides(container, list, jobs) {
  const boxes = list.map((s) => section(container, s, jobs));
  let at = 0;
  const counter = el('span', { class: 'muted' });
  const show = () => {
    boxes.forEach((b, i) => (b.hidden = i !== at));
    counter.textContent = `${at + 1} / ${boxes.length}`;
  };
  container.append(
    el(
      'div',
      { class: 'row slide-nav' },
      el('button', { type: 'button', text: '‹ prev', onclick: () => ((at = Math.max(0, at - 1)), show()) }),
      counter,
      el('button', { type: 'button', text: 'next ›', onclick: () => ((at = Math.min(boxes.length - 1, at + 1)), show()) }),
    ),
  );
  show();
}

function plan(container, b, jobs) {
  if (b.description) container.append(markdown(b.description));
  const nodes = b.steps.map((s) => ({ id: s.id, label: s.title, status: s.status ?? 'proposed' }));
  const edges = b.steps.flatMap((s) => (s.depends_on ?? []).map((d) => ({ from: d, to: s.id })));
  jobs.push(mermaidInto(container, graphSource(nodes, edges, 'TD')));
  const list = el('ol', { class: 'plan-steps' });
  for (const s of b.steps) {
    const status = s.status ?? 'proposed';
    list.append(
      el(
        'li',
        { 'data-step': s.id, 'data-status': status },
        el('span', { class: `badge ${status}`, text: status }),
        ' ',
        el('strong', { text: s.title }),
        s.depends_on?.length ? el('span', { class: 'muted', text: ` after ${s.depends_on.join(', ')}` }) : null,
        s.task_id ? el('span', { class: 'muted mono', text: ` task ${s.task_id.slice(0, 8)}` }) : null,
        s.description ? markdown(s.description, 'md small') : null,
      ),
    );
  }
  container.append(list);
  if (!b.accepted_at)
    container.append(
      el('p', { class: 'muted', text: 'Proposed. Accept it onto the task board with: synapse tasks accept-plan ' + (container.dataset.cardId ?? '<id>') }),
    );
}

/** Renders a body of `type` into `container`; resolves when asynchronous parts (diagrams, charts) are drawn. */
export function renderBody(container, type, body) {
  const jobs = [];
  switch (type) {
    case 'markdown':
      container.append(markdown(body));
      break;
    case 'mermaid':
      jobs.push(mermaidInto(container, body));
      break;
    case 'table':
      container.append(table(body.headers, body.rows));
      break;
    case 'chart':
      jobs.push(chart(container, body));
      break;
    case 'code':
      code(container, body);
      break;
    case 'html':
      html(container, body);
      break;
    case 'diff':
      container.append(sideBySide(body));
      break;
    case 'image':
      container.append(el('img', { class: 'image', src: body.src, alt: body.alt ?? '', loading: 'lazy', referrerpolicy: 'no-referrer' }));
      break;
    case 'link':
      container.append(
        el(
          'div',
          { class: 'link' },
          el('a', { href: body.url, target: '_blank', rel: 'noopener noreferrer', text: body.title ?? body.url }),
          body.description ? el('p', { text: body.description }) : null,
          el('div', { class: 'muted mono', text: body.url }),
        ),
      );
      break;
    case 'progress':
      progress(container, body);
      break;
    case 'terminal':
      container.append(renderAnsi(body));
      break;
    case 'dependency-graph':
      jobs.push(mermaidInto(container, graphSource(body.nodes, body.edges)));
      break;
    case 'cost':
      cost(container, body);
      break;
    case 'briefing':
      if (body.summary) container.append(markdown(body.summary, 'md summary'));
      for (const s of body.sections) section(container, s, jobs);
      break;
    case 'comparison': {
      const row = el('div', { class: 'comparison' });
      for (const s of body.items) section(row, s, jobs);
      container.append(row);
      break;
    }
    case 'dashboard': {
      const grid = el('div', { class: 'dashboard' });
      for (const s of body.widgets) section(grid, s, jobs);
      container.append(grid);
      break;
    }
    case 'steps':
      steps(container, body.steps);
      break;
    case 'slides':
      slides(container, body.slides, jobs);
      break;
    case 'plan':
      plan(container, body, jobs);
      break;
    default:
      container.append(el('pre', { text: JSON.stringify(body, null, 2) }));
  }
  return Promise.all(jobs);
}
