// Installs the pinned real agent CLIs (test/e2e/clis/package-lock.json) into test/e2e/clis when
// they are missing or differ from the lockfile — never globally. The e2e suite drives them
// offline against the project's mock model server. Auto-updaters are switched off by the tests.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('../test/e2e/clis/', import.meta.url));
const BINS = ['claude', 'codex', 'gemini', 'opencode', 'copilot'];

/** Why an install is needed, or null when every pinned CLI is installed at its pinned version. */
function staleReason() {
  const wanted = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).dependencies ?? {};
  for (const [name, version] of Object.entries(wanted)) {
    const manifest = path.join(dir, 'node_modules', name, 'package.json');
    if (!fs.existsSync(manifest)) return `${name} is not installed`;
    const have = JSON.parse(fs.readFileSync(manifest, 'utf8')).version;
    if (have !== version) return `${name} is ${have}, pinned ${version}`;
  }
  const missing = BINS.find((b) => !fs.existsSync(path.join(dir, 'node_modules', '.bin', b)));
  return missing ? `no ${missing} in node_modules/.bin` : null;
}

const reason = staleReason();
if (!reason) {
  console.log('e2e CLIs already installed in test/e2e/clis');
  process.exit(0);
}
console.log(`installing the pinned agent CLIs into test/e2e/clis (npm ci: ${reason})…`);
const t0 = Date.now();
const r = spawnSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], {
  cwd: dir,
  stdio: 'inherit',
  env: { ...process.env, DISABLE_AUTOUPDATER: '1' },
});
if (r.status !== 0) {
  console.error('npm ci in test/e2e/clis failed');
  process.exit(r.status ?? 1);
}
console.log(`installed in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
