// The package as users get it (issue 20 §5): `npm pack` makes a tarball that installs on a clean
// prefix with the native modules built by their own packages, runs from `npx`, and runs the demo.
// npm reaches the registry for the dependencies (their tarballs come from the user's npm cache when
// it has them); nothing else is fetched, and the installed copy is used with a throw-away HOME.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../support/synapse.js';

const INSTALL_MS = 15 * 60_000;
const version = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
// The npm cache the user already has: the dependencies come from it rather than the network when they can.
const npmCache = execFileSync('npm', ['config', 'get', 'cache'], { encoding: 'utf8' }).trim();
const npxDir = path.join(npmCache, '_npx');
// …and the user's npm settings (e.g. `nodedir`, which lets node-gyp build against Node's own headers offline).
const npmUserConfig = execFileSync('npm', ['config', 'get', 'userconfig'], { encoding: 'utf8' }).trim();

let dir: string;
let tarball: string;
let npxBefore: Set<string>;

function npxEntries(): Set<string> {
  return new Set(fs.existsSync(npxDir) ? fs.readdirSync(npxDir) : []);
}

/**
 * A clean environment: this one (proxy, CA and build settings included) without any SYNAPSE_
 * variable, a temp HOME (so no ~/.a2a or ~/.synapse of the user is touched), the user's npm
 * cache and settings.
 */
function env(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SYNAPSE_') && !k.startsWith('npm_')));
  return {
    ...base,
    HOME: path.join(dir, 'home'),
    npm_config_cache: npmCache,
    npm_config_userconfig: npmUserConfig,
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
    ...extra,
  };
}

function run(cmd: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): { status: number | null; stdout: string; out: string } {
  const r = spawnSync(cmd, args, { cwd: opts.cwd ?? dir, env: opts.env ?? env(), encoding: 'utf8', timeout: INSTALL_MS, stdio: ['ignore', 'pipe', 'pipe'] });
  return { status: r.status, stdout: r.stdout, out: `${r.stdout}${r.stderr}` };
}

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'synapse-pack-'));
  fs.mkdirSync(path.join(dir, 'home'));
  npxBefore = npxEntries();
  const packed = run('npm', ['pack', '--json', '--pack-destination', dir], { cwd: ROOT, env: { ...process.env, ...env(), HOME: process.env.HOME } });
  expect(packed.status, packed.out).toBe(0);
  const name = (JSON.parse(packed.stdout.slice(packed.stdout.indexOf('[\n'))) as Array<{ filename: string }>)[0]!.filename;
  tarball = path.join(dir, name);
}, INSTALL_MS);

afterAll(() => {
  // npx unpacks into the npm cache's _npx folder: take back what this test put there.
  for (const entry of npxEntries()) if (!npxBefore.has(entry)) fs.rmSync(path.join(npxDir, entry), { recursive: true, force: true });
  fs.rmSync(dir, { recursive: true, force: true });
  // npm pack's postpack removed the shrinkwrap copy from the checkout.
  expect(fs.existsSync(path.join(ROOT, 'npm-shrinkwrap.json'))).toBe(false);
});

describe('the npm package', () => {
  it('carries the built CLI, skills, plugin, templates, guides and the tested dependency tree, and no sources or tests', () => {
    const files = execFileSync('tar', ['tzf', tarball], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map((f) => f.replace(/^package\//, ''));
    for (const f of [
      'bin/synapse.js',
      // What makes bin/synapse.js CommonJS (it resets its V8 flag before node's ES module loader loads).
      'bin/package.json',
      'dist/cli/main.js',
      'dist/bundle/main.js',
      'dist/bundle/vendor-fastify.js',
      'npm-shrinkwrap.json',
      'README.md',
      'templates/synapse/settings.json',
      'guides/settings.md',
      'web/canvas/index.html',
      'web/canvas/frame.html',
    ]) {
      expect(files).toContain(f);
    }
    expect(files.some((f) => f.startsWith('skills/') && f.endsWith('SKILL.md'))).toBe(true);
    expect(files.some((f) => f.startsWith('plugins/synapse-a2a/'))).toBe(true);
    expect(files.filter((f) => f.startsWith('src/') || f.startsWith('test/') || (f.endsWith('.ts') && !f.endsWith('.d.ts')))).toEqual([]);
  });

  it(
    'installs into a clean prefix and runs: --version, then the demo round trip on the built-in echo agents',
    () => {
      const prefix = path.join(dir, 'prefix');
      const installed = run('npm', ['install', '--global', '--prefix', prefix, tarball]);
      expect(installed.status, installed.out).toBe(0);
      const bin = path.join(prefix, 'bin', 'synapse');
      const v = run(bin, ['--version']);
      expect(v.status, v.out).toBe(0);
      expect(v.stdout.trim()).toBe(version);
      // Native modules were built by their packages for this Node.
      const pkgDir = path.join(prefix, 'lib', 'node_modules', 'synapse-a2a', 'node_modules');
      expect(fs.existsSync(path.join(pkgDir, 'node-pty', 'build', 'Release', 'pty.node'))).toBe(true);
      expect(fs.existsSync(path.join(pkgDir, 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node'))).toBe(true);
      const demo = run(bin, ['demo'], { env: env({ CI: 'true' }) });
      expect(demo.status, demo.out).toBe(0);
      expect(demo.out).toContain('Round trip OK');
      expect(fs.existsSync(path.join(dir, 'home', '.a2a', 'registry')) ? fs.readdirSync(path.join(dir, 'home', '.a2a', 'registry')) : []).toEqual([]);
    },
    INSTALL_MS,
  );

  it(
    'runs from the tarball with npx, no install',
    () => {
      const r = run('npx', ['--yes', '--package', tarball, '--', 'synapse', '--version']);
      expect(r.status, r.out).toBe(0);
      expect(r.stdout.trim()).toBe(version);
    },
    INSTALL_MS,
  );
});
