// Build step (after tsc): bundles the compiled CLI, dist/cli/main.js, into dist/bundle/ (rolldown),
// so that a process reads and compiles a few files instead of hundreds: an agent loaded ~380
// modules before its card answered (bin/synapse.js runs the bundle; guides/agent-runtime.md).
//   - Every dynamic import stays a separate chunk, loaded when it is today: what an idle agent
//     does not load (the A2A SDK, gRPC, commander for an agent …) it still does not load.
//   - Fastify, pino and xterm (what every agent loads at start-up) are bundled in, each package
//     set in a chunk of its own name (vendor-*.js); every other
//     package stays external and loads from node_modules as before: native addons (node-pty,
//     better-sqlite3), the lazily loaded stacks, and all the rest.
//   - `import.meta.url` of each compiled module is rewritten to that module's own URL in dist/,
//     so files found relative to it (templates, generated schemas, bin/synapse.js) are the same.
import fs from 'node:fs';
import path from 'node:path';
import { builtinModules } from 'node:module';
import { fileURLToPath } from 'node:url';
import { rolldown } from 'rolldown';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const DIST = path.join(ROOT, 'dist');
const OUT = path.join(DIST, 'bundle');

/**
 * Packages bundled in, with everything they require: what an agent loads before its card answers.
 * Not commander: a `require` of a bundled package becomes a static import of its chunk, and the
 * agent's entry (cli/main.js) names commander for the commands it never runs.
 */
const INLINE = new Set(['fastify', 'pino', '@xterm/headless']);
/** Required by fastify only when a schema must be compiled or serialised: they stay lazy (and external). */
const LAZY = new Set(['@fastify/ajv-compiler', '@fastify/fast-json-stringify-compiler', 'ajv', 'ajv-formats', 'fast-json-stringify', 'thread-stream']);
const BUILTINS = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);

const packageOf = (spec) =>
  spec
    .split('/')
    .slice(0, spec.startsWith('@') ? 2 : 1)
    .join('/');
const inPackage = (file) => /[\\/]node_modules[\\/]/.test(file ?? '');

/** Bundled or not: our own modules and INLINE packages (and what they require) are; the rest is external. */
function external(id, importer) {
  if (BUILTINS.has(id)) return true;
  if (id.startsWith('.') || path.isAbsolute(id)) return false;
  const pkg = packageOf(id);
  if (LAZY.has(pkg)) return true;
  if (INLINE.has(pkg)) return false;
  return !inPackage(importer);
}

/** The package a file in node_modules belongs to. */
function packageOfFile(file) {
  const [scope, name] = file.slice(file.lastIndexOf('node_modules') + 'node_modules/'.length).split(/[\\/]/);
  return scope.startsWith('@') ? `${scope}/${name}` : scope;
}
const PINO = new Set(['pino', ...Object.keys(JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules/pino/package.json'), 'utf8')).dependencies)]);

/**
 * The bundled packages in chunks of stable names (`vendor-fastify.js`, `vendor-pino.js`,
 * `vendor-xterm.js`), each loaded only by what needs it (a command loads no Fastify).
 */
const vendorOf = (id) => {
  const pkg = inPackage(id) ? packageOfFile(id) : null;
  if (!pkg) return null;
  if (pkg === '@xterm/headless') return 'vendor-xterm';
  return PINO.has(pkg) ? 'vendor-pino' : 'vendor-fastify';
};
const VENDOR_GROUPS = ['vendor-xterm', 'vendor-pino', 'vendor-fastify'].map((name) => ({ name, test: (id) => vendorOf(id) === name }));

/**
 * What `synapse <profile>` runs before it spawns the CLI, in one chunk (`agent-start.js`) instead of
 * ~30 small ones: Node's ESM loader costs ~1 ms a file, and each was paid before the CLI started
 * (~20 ms in all, guides/agent-runtime.md, Start-up). The chunk holds the static imports of
 * run-agent.ts and start-agent.ts (found once the module graph is known, `startPath` below) but not
 * what the entry, cli/main.js, imports itself: every command has those already. A command that
 * needs one of its modules (the registry, the profiles …) loads this chunk instead of several
 * small ones; loading it runs nothing (no node:http, no node:crypto before first use). Its
 * dependencies are not pulled into it (`includeDependenciesRecursively: false`): they stay in the
 * entry's chunks.
 */
const ENTRY = path.join(DIST, 'cli', 'main.js');
const START_SEEDS = ['cli/commands/run-agent.js', 'runtime/start-agent.js'].map((f) => path.join(DIST, f));
const START_PATH = new Set();
const CORE = new Set();
const startPath = {
  name: 'synapse-start-path',
  buildEnd() {
    const closure = (seeds) => {
      const seen = new Set();
      const visit = (id) => {
        if (seen.has(id) || !id.startsWith(DIST) || inPackage(id)) return;
        seen.add(id);
        for (const dep of this.getModuleInfo(id)?.importedIds ?? []) visit(dep);
      };
      seeds.forEach(visit);
      return seen;
    };
    const everyCommand = closure([ENTRY]);
    for (const id of everyCommand) if (id !== ENTRY) CORE.add(id);
    for (const id of closure(START_SEEDS)) if (!everyCommand.has(id)) START_PATH.add(id);
  },
};
const CORE_GROUP = { name: 'core', test: (id) => CORE.has(id), includeDependenciesRecursively: false };
const START_GROUP = { name: 'agent-start', test: (id) => START_PATH.has(id), includeDependenciesRecursively: false };

/** Our `requireCjs('pkg')` of an INLINE package becomes `require('pkg')`, which the bundler resolves. */
const REQUIRE_CJS = /\brequireCjs\(\s*'([^']+)'\s*\)/g;

const rewrite = {
  name: 'synapse-dist',
  transform(code, id) {
    if (!id.startsWith(DIST) || inPackage(id)) return null;
    const rel = path.relative(OUT, id).split(path.sep).join('/');
    let out = code.replaceAll('import.meta.url', `new URL(${JSON.stringify(rel)}, import.meta.url).href`);
    out = out.replace(REQUIRE_CJS, (all, name) => (INLINE.has(packageOf(name)) ? `require(${JSON.stringify(name)})` : all));
    return out === code ? null : { code: out };
  },
};

/**
 * Modules a bundled package requires at its top but uses only for an option or a case we never
 * have: each becomes an object that requires the module on first use. All three are Fastify's:
 *   - `node:http2`, for `http2: true` (loading it cost an idle agent ~2 MiB: the HTTP/2 binding
 *     sets up nghttp2);
 *   - `node:https`, for `https: {…}` (it loads tls and node:crypto, ~1 MiB);
 *   - `semver`, bundled in, for the Fastify version a plugin asks for in its metadata (the agent
 *     registers no such plugin); running its ~40 modules held ~0.25 MiB of an idle agent's heap.
 * The build fails if a line is gone, so a Fastify update cannot silently undo one.
 */
const LAZY_REQUIRES = [
  { file: 'node_modules/fastify/lib/server.js', line: "const http2 = require('node:http2')", name: 'http2', module: 'node:http2' },
  { file: 'node_modules/fastify/lib/server.js', line: "const https = require('node:https')", name: 'https', module: 'node:https' },
  { file: 'node_modules/fastify/lib/plugin-utils.js', line: "const semver = require('semver')", name: 'semver', module: 'semver' },
];

const lazyRequires = {
  name: 'synapse-lazy-requires',
  transform(code, id) {
    const lazy = LAZY_REQUIRES.filter((l) => id.split(path.sep).join('/').endsWith(l.file));
    if (lazy.length === 0) return null;
    let out = code;
    for (const l of lazy) {
      if (!out.includes(l.line)) throw new Error(`scripts/bundle.mjs: "${l.line}" is no longer in ${l.file}: update LAZY_REQUIRES`);
      const load = `require(${JSON.stringify(l.module)})`;
      out = out.replace(l.line, `const ${l.name} = new Proxy({}, { get: (_, key) => ${load}[key], has: (_, key) => key in ${load} })`);
    }
    return { code: out };
  },
};

fs.rmSync(OUT, { recursive: true, force: true });
const bundle = await rolldown({
  input: { main: path.join(DIST, 'cli', 'main.js') },
  platform: 'node',
  external,
  plugins: [rewrite, lazyRequires, startPath],
  // The entry's exports may grow (agent-start.js's dependencies stay in it): required by
  // includeDependenciesRecursively: false, and bin/synapse.js only calls main().
  preserveEntrySignatures: 'allow-extension',
  logLevel: 'warn',
});
const { output } = await bundle.write({
  dir: OUT,
  format: 'esm',
  entryFileNames: '[name].js',
  chunkFileNames: '[name].js',
  minify: true,
  // V8 keeps each module's source in memory; one non-ASCII character makes it a two-byte string
  // (the chunks of Fastify, xterm, pino and the agent held ~0.6 MiB more than their size).
  charset: 'ascii',
  codeSplitting: { groups: [CORE_GROUP, START_GROUP, ...VENDOR_GROUPS] },
});
await bundle.close();
// What `charset: 'ascii'` leaves: the legal comments kept from bundled packages (a name with an
// umlaut); escaped as text, so no chunk's source becomes a two-byte string.
for (const chunk of output) {
  const file = path.join(OUT, chunk.fileName);
  if (!chunk.code || !/[^\x00-\x7f]/.test(chunk.code)) continue;
  const ascii = chunk.code.replace(/\/\*![\s\S]*?\*\//g, (comment) => comment.replace(/[^\x00-\x7f]/gu, (c) => `\\u{${c.codePointAt(0).toString(16)}}`));
  if (/[^\x00-\x7f]/.test(ascii)) console.warn(`bundle: ${chunk.fileName} still has non-ASCII characters (its source is held as a two-byte string)`);
  fs.writeFileSync(file, ascii);
}
const bytes = output.reduce((n, o) => n + (o.code?.length ?? 0), 0);
console.log(
  `bundled dist/cli/main.js into ${output.length} files in dist/bundle (${(bytes / 1024).toFixed(0)} KiB; ${START_PATH.size} modules in agent-start.js)`,
);
