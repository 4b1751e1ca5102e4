// A diff card, side by side: from unified diff text (git diff) or from {before, after}.
import { el } from './lib.js';

/** Rows of [left, right], each {n, text, kind} or null; from a unified diff. */
function fromUnified(text) {
  const rows = [];
  let files = [];
  let left = 0;
  let right = 0;
  let dels = [];
  let adds = [];
  const flush = () => {
    const n = Math.max(dels.length, adds.length);
    for (let i = 0; i < n; i++) rows.push([dels[i] ?? null, adds[i] ?? null]);
    dels = [];
    adds = [];
  };
  for (const line of String(text).split('\n')) {
    const hunk = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@(.*)$/.exec(line);
    if (hunk) {
      flush();
      left = Number(hunk[1]);
      right = Number(hunk[2]);
      rows.push({ hunk: line });
    } else if (line.startsWith('+++ ') || line.startsWith('--- ') || line.startsWith('diff ') || line.startsWith('index ')) {
      flush();
      if (line.startsWith('+++ ')) files.push(line.slice(4).replace(/^b\//, ''));
      if (line.startsWith('diff ')) rows.push({ file: line.replace(/^diff --git a\/\S+ b\//, '') });
    } else if (line.startsWith('-')) dels.push({ n: left++, text: line.slice(1), kind: 'del' });
    else if (line.startsWith('+')) adds.push({ n: right++, text: line.slice(1), kind: 'add' });
    else if (line.startsWith(' ') || (line === '' && left > 0)) {
      flush();
      rows.push([
        { n: left++, text: line.slice(1), kind: 'ctx' },
        { n: right++, text: line.slice(1), kind: 'ctx' },
      ]);
    }
  }
  flush();
  return rows;
}

/** Rows from two texts: a longest-common-subsequence line diff (large inputs fall back to whole blocks). */
function fromTexts(before, after) {
  const a = String(before).split('\n');
  const b = String(after).split('\n');
  if (a.length * b.length > 4_000_000)
    return [
      [
        { n: 1, text: before, kind: 'del' },
        { n: 1, text: after, kind: 'add' },
      ],
    ];
  const dp = Array.from({ length: a.length + 1 }, () => new Uint32Array(b.length + 1));
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--) dp[i][j] = a[i] === b[j] ? dp[i + 1][j + 1] + 1 : Math.max(dp[i + 1][j], dp[i][j + 1]);
  const rows = [];
  let dels = [];
  let adds = [];
  const flush = () => {
    const n = Math.max(dels.length, adds.length);
    for (let k = 0; k < n; k++) rows.push([dels[k] ?? null, adds[k] ?? null]);
    dels = [];
    adds = [];
  };
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      flush();
      rows.push([
        { n: i + 1, text: a[i], kind: 'ctx' },
        { n: j + 1, text: b[j], kind: 'ctx' },
      ]);
      i++;
      j++;
    } else if (j < b.length && (i >= a.length || dp[i][j + 1] >= dp[i + 1][j])) {
      adds.push({ n: j + 1, text: b[j], kind: 'add' });
      j++;
    } else {
      dels.push({ n: i + 1, text: a[i], kind: 'del' });
      i++;
    }
  }
  flush();
  return rows;
}

const cell = (c) =>
  c
    ? [el('td', { class: `ln ${c.kind}`, text: String(c.n) }), el('td', { class: `tx ${c.kind}`, text: c.text })]
    : [el('td', { class: 'ln empty' }), el('td', { class: 'tx empty' })];

export function sideBySide(body) {
  const rows = typeof body === 'string' ? fromUnified(body) : fromTexts(body.before, body.after);
  const tbody = el('tbody');
  for (const r of rows) {
    if (r.hunk) tbody.append(el('tr', { class: 'hunk' }, el('td', { colspan: '4', text: r.hunk })));
    else if (r.file) tbody.append(el('tr', { class: 'file' }, el('td', { colspan: '4', text: r.file })));
    else tbody.append(el('tr', {}, ...cell(r[0]), ...cell(r[1])));
  }
  return el(
    'div',
    { class: 'scroll-x' },
    typeof body === 'object' && body.filename ? el('div', { class: 'filename', text: body.filename }) : null,
    el('table', { class: 'diff' }, tbody),
  );
}
