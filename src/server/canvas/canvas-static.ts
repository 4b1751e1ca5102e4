import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { SynapseError } from '../../errors.js';

/**
 * The dashboard's files: the web app under `web/canvas/` and the browser builds of its libraries,
 * served from the installed packages (no CDN, so it works offline). Only files of those folders
 * are served; a path that leaves them is a 404.
 */

const require = createRequire(import.meta.url);

/** `web/canvas/`, beside `dist/` and `src/` alike. */
const WEB_ROOT = fileURLToPath(new URL('../../../web/canvas/', import.meta.url));

/** Where `name` is installed, found the way `require` looks (some of these packages have no main entry to resolve). */
function packageDir(name: string): string {
  for (const dir of require.resolve.paths(name) ?? []) {
    if (fs.existsSync(path.join(dir, name, 'package.json'))) return path.join(dir, name);
  }
  throw new Error(`the package ${name} is not installed`);
}

/** URL prefix under /vendor/ → a folder of an installed package. */
const VENDOR: Record<string, [pkg: string, folder: string]> = {
  mermaid: ['mermaid', 'dist'],
  chartjs: ['chart.js', 'dist'],
  dompurify: ['dompurify', 'dist'],
  marked: ['marked', 'lib'],
  hljs: ['@highlightjs/cdn-assets', 'es'],
  'hljs-styles': ['@highlightjs/cdn-assets', 'styles'],
};

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
};

/** `rel` inside `root`, or null when it would leave it (`..`, absolute, NUL) or names no file. */
function inside(root: string, rel: string): string | null {
  if (rel.includes('\0')) return null;
  const file = path.resolve(root, rel);
  if (!file.startsWith(root.endsWith(path.sep) ? root : root + path.sep)) return null;
  try {
    return fs.statSync(file).isFile() ? file : null;
  } catch {
    return null; // no such file
  }
}

/** The dashboard page's policy: scripts only from this server, so no card can run script here. */
function pagePolicy(port: number): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    'img-src * data: blob:',
    `connect-src 'self' ws://127.0.0.1:${port} ws://localhost:${port}`,
    "frame-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/**
 * The html card frame: a page whose one inline script (allowed by its hash, nothing else may run)
 * takes the sanitised card HTML and the theme from the dashboard by postMessage and reports its
 * height back. The dashboard loads it sandboxed without allow-same-origin, so it cannot reach the
 * dashboard's page, storage or API.
 */
function framePage(): { html: string; policy: string } {
  const source = fs.readFileSync(path.join(WEB_ROOT, 'frame.html'), 'utf8');
  const script = /<script>([\s\S]*?)<\/script>/.exec(source)?.[1] ?? '';
  const hash = createHash('sha256').update(script).digest('base64');
  const policy = [
    "default-src 'none'",
    `script-src 'sha256-${hash}'`,
    "style-src 'unsafe-inline'",
    'img-src * data:',
    'font-src data:',
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'self'",
  ].join('; ');
  return { html: source, policy };
}

function sendFile(reply: FastifyReply, file: string, cache: boolean): FastifyReply {
  return reply
    .header('content-type', TYPES[path.extname(file)] ?? 'application/octet-stream')
    .header('x-content-type-options', 'nosniff')
    .header('cache-control', cache ? 'public, max-age=3600' : 'no-cache')
    .send(fs.createReadStream(file));
}

const notFound = (what: string) => new SynapseError('not_found', `no such file: ${what}`);

export function staticRoutes(app: FastifyInstance, port: number): void {
  const frame = framePage();
  const vendorRoots = new Map(Object.entries(VENDOR).map(([prefix, [pkg, folder]]) => [prefix, path.join(packageDir(pkg), folder)]));

  app.get('/', (_req, reply) =>
    reply
      .header('content-type', TYPES['.html'])
      .header('content-security-policy', pagePolicy(port))
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer')
      .header('cache-control', 'no-cache')
      .send(fs.createReadStream(path.join(WEB_ROOT, 'index.html'))),
  );
  app.get('/frame', (_req, reply) =>
    reply
      .header('content-type', TYPES['.html'])
      .header('content-security-policy', frame.policy)
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer')
      .send(frame.html),
  );
  app.get<{ Params: { '*': string } }>('/app/*', (req, reply) => {
    const file = inside(WEB_ROOT, req.params['*']);
    if (!file) throw notFound(req.params['*']);
    return sendFile(reply.header('content-security-policy', pagePolicy(port)), file, false);
  });
  app.get<{ Params: { pkg: string; '*': string } }>('/vendor/:pkg/*', (req, reply) => {
    const root = vendorRoots.get(req.params.pkg);
    const file = root ? inside(root, req.params['*']) : null;
    if (!file) throw notFound(`${req.params.pkg}/${req.params['*']}`);
    return sendFile(reply, file, true);
  });
}
