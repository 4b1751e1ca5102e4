import { afterAll, describe, expect, it } from 'vitest';
import { AGENT_NODE_FLAGS } from '../../../src/runtime/launch.js';
import { bareCodeCache, codeCacheProbe, expectProbe } from '../../support/code-cache-probe.js';
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

describe("a synapse process's V8 flags", () => {
  const src = bareCodeCache(t.home);
  const probe = (script: string) => codeCacheProbe(t.home, script);

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

  it('are reset under NODE_OPTIONS=--no-deprecation too, where node has made process.noDeprecation read-only', async () => {
    const { file, out } = probe(src);
    const run = await runFile(BIN, ['--version'], { env: { ...t.env, NODE_OPTIONS: `--no-deprecation --require ${file}`, PROBE_OUT: out } });
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
