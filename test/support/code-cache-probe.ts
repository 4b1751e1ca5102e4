import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';

/**
 * Whether V8 takes a code cache in a synapse process: V8 takes one, Node's built-in one among
 * them, only when its flags hash as those it was made under (bin/synapse.js, optimizer-gate.ts).
 * A script's cache made by a node without flags, and a preload that, when the process exits,
 * reports what V8 does with it and how far the young generation grows under churn.
 * The churn is small (~0.2 s under the agent's 1 MiB semi-spaces, 32 MiB of young generation
 * without them): it runs in the process's exit, inside stopGroup's 5 s before its SIGKILL.
 */
const SOURCE = 'function answer() { return 42; }\nanswer();\n';

/** A code cache made by a node with no flags at all (nor NODE_OPTIONS), next to its script in `dir`; returns the script. */
export function bareCodeCache(dir: string): string {
  const src = path.join(dir, 'script.js');
  const cache = path.join(dir, 'script.cache');
  fs.writeFileSync(src, SOURCE);
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  const made = spawnSync(
    process.execPath,
    [
      '-e',
      `const fs = require('fs'); fs.writeFileSync(${JSON.stringify(cache)}, new (require('vm').Script)(fs.readFileSync(${JSON.stringify(src)}, 'utf8')).createCachedData());`,
    ],
    { env },
  );
  expect(made.status, String(made.stderr)).toBe(0);
  return src;
}

/**
 * The preload (`file`, for NODE_OPTIONS=--require) and where it writes its report (`out`, its
 * PROBE_OUT). With `only`, a process reports only when its script's path ends so (an agent's CLI
 * child inherits NODE_OPTIONS too).
 */
export function codeCacheProbe(dir: string, src: string, only = ''): { file: string; out: string } {
  const file = path.join(dir, 'probe.cjs');
  const out = path.join(dir, `probe-${Math.random().toString(36).slice(2)}.json`);
  fs.writeFileSync(
    file,
    `const fs = require('fs'), vm = require('vm'), v8 = require('v8');
const report = (process.argv[1] ?? '').endsWith(${JSON.stringify(only)}) ? process.env.PROBE_OUT : undefined;
process.on('exit', () => {
  const script = new vm.Script(fs.readFileSync(${JSON.stringify(src)}, 'utf8'), { filename: 'probe-check.js', cachedData: fs.readFileSync(${JSON.stringify(`${src.slice(0, -3)}.cache`)}) });
  let kept = [];
  for (let i = 0; i < 3e5; i++) { kept.push({ i, s: 'x' + i }); if (kept.length > 50000) kept = []; }
  const newSpace = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size;
  if (report) fs.writeFileSync(report, JSON.stringify({ rejected: script.cachedDataRejected, newSpaceMiB: newSpace / 1048576 }));
});
`,
  );
  return { file, out };
}

/** The cache taken or refused; the young generation at most the flag's two 1 MiB semi-spaces ('small'), or grown past them. */
export function expectProbe(out: string, want: { rejected: boolean; young: 'small' | 'grown' }): void {
  expect(fs.existsSync(out), `${out}: no report, so the process was killed before its exit handler ran`).toBe(true);
  const got = JSON.parse(fs.readFileSync(out, 'utf8')) as { rejected: boolean; newSpaceMiB: number };
  expect({ rejected: got.rejected, young: got.newSpaceMiB <= 2 ? 'small' : 'grown', newSpaceMiB: got.newSpaceMiB }).toEqual({
    ...want,
    newSpaceMiB: expect.any(Number),
  });
}
