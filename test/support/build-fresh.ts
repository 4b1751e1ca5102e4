// Vitest global setup for the suites that run the built CLI (`bin/synapse.js` -> `dist/`):
// when `dist/` is missing or older than `src/`, it builds first, so a test never proves
// something about yesterday's build. Building (rather than refusing) because the fix for a
// stale build is always the same command, and a refusal only makes the developer type it.
// `npm test` builds before vitest, so here everything is fresh and nothing is built twice.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function files(dir: string): string[] {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  return entries.flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

function mtime(file: string): number | null {
  try {
    return fs.statSync(file).mtimeMs;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/**
 * Why `root/dist` is out of date, one reason per line (empty when it is fresh): a source file
 * without its compiled `.js`, or newer than it (tsconfig.json counts as an input of every
 * file), a generated JSON schema older than the module it was emitted from, and the bundle
 * the bin runs (dist/bundle/, scripts/bundle.mjs) missing or older than a compiled module.
 */
export function staleReasons(root: string): string[] {
  const src = path.join(root, 'src');
  const dist = path.join(root, 'dist');
  const config = mtime(path.join(root, 'tsconfig.json')) ?? 0;
  const reasons: string[] = [];
  for (const file of files(src)) {
    if (!file.endsWith('.ts') || file.endsWith('.d.ts')) continue;
    const rel = path.relative(src, file);
    const out = path.join(dist, rel.replace(/\.ts$/, '.js'));
    const built = mtime(out);
    if (built === null) reasons.push(`dist/${path.relative(dist, out)} is missing`);
    else if (built < Math.max(mtime(file) ?? 0, config)) reasons.push(`src/${rel} is newer than dist/${path.relative(dist, out)}`);
  }
  for (const json of files(dist).filter((f) => f.endsWith('.generated.json'))) {
    const module = json.replace(/\.generated\.json$/, '.js');
    const built = mtime(module);
    if (built !== null && (mtime(json) ?? 0) < built) reasons.push(`dist/${path.relative(dist, json)} is older than dist/${path.relative(dist, module)}`);
  }
  const bundle = path.join(dist, 'bundle', 'main.js');
  const bundled = mtime(bundle);
  const compiled = files(dist).filter((f) => f.endsWith('.js') && !f.startsWith(path.dirname(bundle) + path.sep));
  const newest = compiled.reduce<string | null>((a, f) => (a === null || (mtime(f) ?? 0) > (mtime(a) ?? 0) ? f : a), null);
  if (bundled === null) reasons.push('dist/bundle/main.js is missing');
  else if (newest && (mtime(newest) ?? 0) > bundled) reasons.push(`dist/bundle/main.js is older than dist/${path.relative(dist, newest)}`);
  return reasons;
}

export default function buildWhenStale(): void {
  const reasons = staleReasons(ROOT);
  if (reasons.length === 0) return;
  const shown = reasons.slice(0, 3).join('; ') + (reasons.length > 3 ? `; and ${reasons.length - 3} more` : '');
  process.stderr.write(`\ndist/ is stale (${shown}): running npm run build before the tests that spawn bin/synapse.js\n`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const result = spawnSync(npm, ['run', 'build'], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
  if (result.status !== 0) {
    throw new Error(`npm run build failed (${result.error?.message ?? `exit ${result.status}`}); the tests would run an old dist/, so none ran`);
  }
  const left = staleReasons(ROOT);
  if (left.length > 0) throw new Error(`dist/ is still stale after npm run build: ${left.slice(0, 3).join('; ')}`);
}
