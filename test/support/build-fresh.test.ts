// The integration suites' global setup builds when dist/ is stale: what counts as stale.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { staleReasons } from './build-fresh.js';

let root: string;
const T0 = new Date('2026-01-01T00:00:00Z');

function write(rel: string, at: Date): void {
  const file = path.join(root, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, '');
  fs.utimesSync(file, at, at);
}
const later = (s: number) => new Date(T0.getTime() + s * 1000);

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'build-fresh-'));
  write('tsconfig.json', T0);
  write('src/cli/main.ts', T0);
  write('src/profiles/types.d.ts', later(50));
  write('src/server/schemas.ts', T0);
  write('dist/cli/main.js', later(10));
  write('dist/server/schemas.js', later(10));
  write('dist/server/schemas.generated.json', later(11));
  write('dist/bundle/main.js', later(12));
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

describe('staleReasons', () => {
  it('is empty when every compiled file is newer than its source (as right after npm run build)', () => {
    expect(staleReasons(root)).toEqual([]);
  });

  it('names a source file edited after the build', () => {
    write('src/cli/main.ts', later(20));
    expect(staleReasons(root)).toEqual([`src/${path.join('cli', 'main.ts')} is newer than dist/${path.join('cli', 'main.js')}`]);
  });

  it('names a new source file that was never compiled, and a missing dist/ entirely', () => {
    write('src/config/env-number.ts', later(5));
    expect(staleReasons(root)).toEqual([`dist/${path.join('config', 'env-number.js')} is missing`]);
    fs.rmSync(path.join(root, 'dist'), { recursive: true });
    expect(staleReasons(root)).toHaveLength(4);
  });

  it('counts tsconfig.json as an input of every file', () => {
    write('tsconfig.json', later(20));
    expect(staleReasons(root)).toHaveLength(2);
  });

  it('names JSON schemas emitted before their module was last compiled (a bare tsc, no emit step)', () => {
    write('dist/server/schemas.js', later(30));
    expect(staleReasons(root)).toEqual([
      `dist/${path.join('server', 'schemas.generated.json')} is older than dist/${path.join('server', 'schemas.js')}`,
      `dist/bundle/main.js is older than dist/${path.join('server', 'schemas.js')}`,
    ]);
  });

  it('names the bundle the bin runs when it is missing, or older than a compiled module (a bare tsc, no bundle step)', () => {
    write('dist/cli/main.js', later(40));
    expect(staleReasons(root)).toEqual([`dist/bundle/main.js is older than dist/${path.join('cli', 'main.js')}`]);
    fs.rmSync(path.join(root, 'dist', 'bundle'), { recursive: true });
    expect(staleReasons(root)).toEqual(['dist/bundle/main.js is missing']);
  });
});
