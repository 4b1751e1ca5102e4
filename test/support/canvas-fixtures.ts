import { spawn, type ChildProcess } from 'node:child_process';
import { BIN, freePort, stopGroup, waitFor } from './synapse.js';

/** A small square as an SVG data URL: an image card that needs no network. */
const SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="160" height="90"><rect width="160" height="90" rx="8" fill="#2563eb"/><text x="80" y="52" font-size="20" text-anchor="middle" fill="#fff">synapse</text></svg>`;

/** One valid body of every card type, with the title it is posted under. */
export const SAMPLE_CARDS: Record<string, { title: string; body: unknown }> = {
  markdown: { title: 'Status', body: '# Parser\n\n- [x] tokenizer\n- [ ] **error recovery**\n\n`npm test` is green.' },
  mermaid: { title: 'Flow', body: 'graph LR\n  A[request] --> B{cached?}\n  B -- yes --> C[answer]\n  B -- no --> D[compute] --> C' },
  table: {
    title: 'Files',
    body: {
      headers: ['file', 'lines', 'covered'],
      rows: [
        ['parser.ts', 412, true],
        ['lexer.ts', 188, false],
      ],
    },
  },
  chart: { title: 'Latency', body: { type: 'bar', labels: ['p50', 'p90', 'p99'], datasets: [{ label: 'ms', data: [12, 40, 95] }] } },
  code: {
    title: 'Snippet',
    body: { code: 'export function add(a: number, b: number): number {\n  return a + b;\n}\n', language: 'typescript', filename: 'add.ts' },
  },
  html: { title: 'Report', body: '<h2 id="report-head">Build report</h2><p style="color:#16a34a">All 212 tests passed.</p>' },
  diff: {
    title: 'Change',
    body: 'diff --git a/add.ts b/add.ts\n--- a/add.ts\n+++ b/add.ts\n@@ -1,3 +1,3 @@\n export function add(a, b) {\n-  return a - b;\n+  return a + b;\n }\n',
  },
  image: { title: 'Logo', body: { src: `data:image/svg+xml;base64,${Buffer.from(SVG).toString('base64')}`, alt: 'logo' } },
  link: { title: 'Spec', body: { url: 'https://example.com/spec', title: 'The spec', description: 'What the parser must accept.' } },
  progress: { title: 'Migration', body: { value: 3, max: 5, label: 'tables migrated', steps: ['users', 'orders', 'items', 'payments', 'audit'] } },
  terminal: {
    title: 'Test run',
    body: '\u001b[32m✓\u001b[0m parser (12 tests)\n\u001b[31m✗\u001b[0m lexer \u001b[1mfailed\u001b[0m\n\u001b[38;5;208morange 256\u001b[0m',
  },
  'dependency-graph': {
    title: 'Modules',
    body: {
      nodes: [{ id: 'cli' }, { id: 'store', status: 'completed' }, { id: 'server', label: 'HTTP "server"', status: 'active' }],
      edges: [
        { from: 'cli', to: 'store' },
        { from: 'server', to: 'store' },
      ],
    },
  },
  cost: {
    title: 'Spend',
    body: {
      currency: 'USD',
      items: [
        { label: 'claude', input_tokens: 120000, output_tokens: 8000, cost: 1.92 },
        { label: 'codex', cost: 0.4 },
      ],
    },
  },
  briefing: {
    title: 'Morning briefing',
    body: {
      summary: 'Two agents worked overnight.',
      sections: [
        { title: 'Done', content: '- parser' },
        { title: 'Numbers', block: { type: 'table', body: { headers: ['k', 'v'], rows: [['tests', 212]] } } },
      ],
    },
  },
  comparison: {
    title: 'Options',
    body: {
      items: [
        { title: 'SQLite', content: 'one file, WAL' },
        { title: 'Postgres', content: 'a server, many machines' },
      ],
    },
  },
  dashboard: {
    title: 'Team',
    body: {
      widgets: [
        { title: 'Progress', block: { type: 'progress', body: { value: 7, max: 10 } } },
        { title: 'Note', content: '**on track**' },
      ],
    },
  },
  steps: { title: 'Release', body: { steps: [{ title: 'build', status: 'done' }, { title: 'test', status: 'active' }, { title: 'publish' }] } },
  slides: {
    title: 'Demo',
    body: {
      slides: [
        { title: 'One', content: 'first slide' },
        { title: 'Two', content: 'second slide' },
      ],
    },
  },
  plan: {
    title: 'Parser plan',
    body: {
      description: 'How the parser gets done.',
      steps: [
        { id: 'lex', title: 'Write the lexer' },
        { id: 'parse', title: 'Write the parser', depends_on: ['lex'] },
        { id: 'docs', title: 'Document it', depends_on: ['parse'] },
      ],
    },
  },
};

export interface CanvasServer {
  url: string;
  port: number;
  child: ChildProcess;
  output: () => string;
  stop: () => Promise<void>;
}

/** `synapse canvas serve --no-open` as a child (its own process group), ready when /api/status answers. */
export async function startCanvas(env: NodeJS.ProcessEnv, cwd: string): Promise<CanvasServer> {
  const port = await freePort();
  const child = spawn(process.execPath, [BIN, 'canvas', 'serve', '--port', String(port), '--no-open'], {
    env,
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const url = `http://127.0.0.1:${port}`;
  await waitFor(
    async () => {
      if (child.exitCode !== null) throw new Error(`canvas serve exited (${child.exitCode}):\n${out}`);
      const res = await fetch(`${url}/api/status`).catch(() => null);
      return res?.status === 200;
    },
    15_000,
    'the canvas server',
  );
  return { url, port, child, output: () => out, stop: () => stopGroup(child) };
}

export async function postCard(url: string, card: Record<string, unknown>): Promise<any> {
  const res = await fetch(`${url}/api/cards`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(card) });
  const body = await res.json();
  if (res.status >= 300) throw new Error(`${res.status} ${JSON.stringify(body)}`);
  return body;
}
