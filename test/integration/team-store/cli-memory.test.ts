import { describe, expect, it } from 'vitest';
import { helpShowsExamples, synapse, useTempProject } from './harness.js';

/**
 * Spawn smoke tests: `bin/synapse.js memory …` parses, reads its real stdin, calls the command
 * and exits with the right code. What each command does is tested in-process in
 * test/integration/cli/memory.test.ts.
 */

const ctx = useTempProject();

describe('synapse memory (spawned)', () => {
  it('saves a note read from stdin, shows it, and exits 1 for a missing key', async () => {
    const piped = await synapse(ctx.project, ['memory', 'save', 'from-pipe', '-', '--tags', 'a,b'], { input: 'long text\nfrom stdin\n' });
    expect(piped.code).toBe(0);
    expect(piped.stdout).toBe('saved from-pipe [a, b]\n');
    expect((await synapse(ctx.project, ['memory', 'show', 'from-pipe'])).stdout).toContain('long text\nfrom stdin');
    const missing = await synapse(ctx.project, ['memory', 'show', 'from']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('similar keys: from-pipe');
  });

  it('exits 1 when shared memory is off, and has --help', async () => {
    const off = await synapse(ctx.project, ['memory', 'list'], { env: { SYNAPSE_SHARED_MEMORY_ENABLED: 'false' } });
    expect(off.code).toBe(1);
    expect(off.stderr).toContain('shared memory is disabled');
    expect(await helpShowsExamples(ctx.project, 'memory', 'save')).toBe(true);
  });
});
