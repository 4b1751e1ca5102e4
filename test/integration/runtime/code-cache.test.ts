import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AGENT_NODE_FLAGS } from '../../../src/runtime/launch.js';
import { BIN, runFile, runNode, tempHome } from '../../support/synapse.js';

/**
 * bin/synapse.js puts its V8 flag back to the default once node has started (the heap keeps the
 * young generation it was made with): V8 takes a code cache, Node's built-in one among them, only
 * when its flags hash as those it was made under. Seen from inside a synapse process: a script's
 * code cache made by a node without flags must be accepted, and the young generation must still
 * stop at the flag's 1 MiB semi-spaces (a node without the flag grows it to 16).
 */
const t = tempHome();
afterAll(() => t.cleanup());

const SOURCE = 'function answer() { return 42; }\nanswer();\n';

/** A code cache made by a node with no flags at all (nor NODE_OPTIONS). */
function bareCodeCache(): string {
  const src = path.join(t.home, 'script.js');
  const cache = path.join(t.home, 'script.cache');
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

/** Preloaded into a synapse process: when it exits, it reports what V8 does with that cache, and how far its young generation grows under churn. */
function probe(src: string): { file: string; out: string } {
  const file = path.join(t.home, 'probe.cjs');
  const out = path.join(t.home, `probe-${Math.random().toString(36).slice(2)}.json`);
  fs.writeFileSync(
    file,
    `const fs = require('fs'), vm = require('vm'), v8 = require('v8');
process.on('exit', () => {
  const script = new vm.Script(fs.readFileSync(${JSON.stringify(src)}, 'utf8'), { filename: 'probe-check.js', cachedData: fs.readFileSync(${JSON.stringify(`${src.slice(0, -3)}.cache`)}) });
  let kept = [];
  for (let i = 0; i < 3e6; i++) { kept.push({ i, s: 'x' + i }); if (kept.length > 50000) kept = []; }
  const newSpace = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size;
  fs.writeFileSync(process.env.PROBE_OUT, JSON.stringify({ rejected: script.cachedDataRejected, newSpaceMiB: newSpace / 1048576 }));
});
`,
  );
  return { file, out };
}

/** The cache taken or refused; the young generation at most the flag's two 1 MiB semi-spaces ('small'), or grown past them. */
function expectProbe(out: string, want: { rejected: boolean; young: 'small' | 'grown' }): void {
  const got = JSON.parse(fs.readFileSync(out, 'utf8')) as { rejected: boolean; newSpaceMiB: number };
  expect({ rejected: got.rejected, young: got.newSpaceMiB <= 2 ? 'small' : 'grown', newSpaceMiB: got.newSpaceMiB }).toEqual({
    ...want,
    newSpaceMiB: expect.any(Number),
  });
}

describe("a synapse process's V8 flags", () => {
  const src = bareCodeCache();

  it('leave the code cache of a node without flags usable, through the shebang as a shell runs synapse', async () => {
    const { file, out } = probe(src);
    const run = await runFile(BIN, ['--version'], { env: { ...t.env, NODE_OPTIONS: `--require ${file}`, PROBE_OUT: out } });
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    expectProbe(out, { rejected: false, young: 'small' });
  });

  it('are reset through a binding node marks deprecated, without a deprecation warning even where one would throw', async () => {
    const { file, out } = probe(src);
    const run = await runFile(BIN, ['--version'], {
      env: { ...t.env, NODE_OPTIONS: `--pending-deprecation --throw-deprecation --require ${file}`, PROBE_OUT: out },
    });
    expect({ code: run.code, stdout: run.stdout, stderr: run.stderr }).toEqual({ code: 0, stdout: expect.stringMatching(/^\d+\.\d+\.\d+/), stderr: '' });
    expectProbe(out, { rejected: false, young: 'small' });
  });

  it('and as synapse start and the team panes start an agent (AGENT_NODE_FLAGS before the bin)', async () => {
    const { file, out } = probe(src);
    const run = await runNode([...AGENT_NODE_FLAGS, BIN, '--version'], { env: { ...t.env, NODE_OPTIONS: `--require ${file}`, PROBE_OUT: out } });
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    expectProbe(out, { rejected: false, young: 'small' });
  });

  it('are what would make V8 refuse that cache, were they left on (the control)', async () => {
    const { file, out } = probe(src);
    const run = await runNode([...AGENT_NODE_FLAGS, '-e', '0'], { env: { ...t.env, NODE_OPTIONS: `--require ${file}`, PROBE_OUT: out } });
    expect(run.code, run.stderr).toBe(0);
    expectProbe(out, { rejected: true, young: 'small' });
  });

  it('are what keeps the young generation small: without them the same churn grows it (the control)', async () => {
    const { file, out } = probe(src);
    const run = await runNode(['-e', '0'], { env: { ...t.env, NODE_OPTIONS: `--require ${file}`, PROBE_OUT: out } });
    expect(run.code, run.stderr).toBe(0);
    expectProbe(out, { rejected: false, young: 'grown' });
  });
});
