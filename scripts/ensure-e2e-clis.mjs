// Installs the pinned real agent CLIs (test/e2e/clis/package-lock.json) into test/e2e/clis when
// they are missing or out of date — never globally. The e2e suite drives them offline against
// the project's mock model server. Auto-updaters are switched off by the tests themselves.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('../test/e2e/clis/', import.meta.url));
const lock = path.join(dir, 'package-lock.json');
const installed = path.join(dir, 'node_modules', '.package-lock.json');
const fresh = fs.existsSync(installed) && fs.statSync(installed).mtimeMs >= fs.statSync(lock).mtimeMs;
const bins = ['claude', 'codex', 'gemini'].every((b) => fs.existsSync(path.join(dir, 'node_modules', '.bin', b)));
if (fresh && bins) {
  console.log('e2e CLIs already installed in test/e2e/clis');
  process.exit(0);
}
console.log('installing the pinned agent CLIs into test/e2e/clis (npm ci)…');
const t0 = Date.now();
const r = spawnSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir, stdio: 'inherit', env: { ...process.env, DISABLE_AUTOUPDATER: '1' } });
if (r.status !== 0) {
  console.error('npm ci in test/e2e/clis failed');
  process.exit(r.status ?? 1);
}
console.log(`installed in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
