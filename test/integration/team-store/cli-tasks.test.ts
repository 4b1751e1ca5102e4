import { describe, expect, it } from 'vitest';
import { helpShowsExamples, json, synapse, useTempProject } from './harness.js';

/**
 * Spawn smoke tests: `bin/synapse.js tasks …` parses, calls the command and exits with the
 * right code. What each command does is tested in-process in test/integration/cli/tasks.test.ts.
 */

const ctx = useTempProject();

describe('synapse tasks (spawned)', () => {
  it('parses options into the command, prints JSON and exits 1 on a refused claim', async () => {
    const a = await json(ctx.project, ['tasks', 'create', 'Write parser', '--priority', '4', '--json']);
    const b = await json(ctx.project, ['tasks', 'create', 'Ship', '--blocked-by', a.id.slice(0, 6), '--json'], { SYNAPSE_AGENT_ID: 'synapse-claude-8100' });
    expect(a).toMatchObject({ subject: 'Write parser', priority: 4, status: 'pending' });
    expect(b).toMatchObject({ blocked: true, created_by: 'synapse-claude-8100' });
    const blocked = await synapse(ctx.project, ['tasks', 'claim', b.id.slice(0, 8), '--as', 'bob']);
    expect(blocked.code).toBe(1);
    expect(blocked.stderr).toContain(`blocked by ${a.id.slice(0, 8)} "Write parser" (pending)`);
  });

  it('refuses a missing required option and a value outside the choices, and has --help', async () => {
    const noReason = await synapse(ctx.project, ['tasks', 'fail', 'abcd']);
    expect(noReason.code).toBe(1);
    expect(noReason.stderr).toContain("required option '--reason <text>'");
    const badGroup = await synapse(ctx.project, ['tasks', 'list', '--group-by', 'owner']);
    expect(badGroup.code).toBe(1);
    expect(badGroup.stderr).toContain('Allowed choices are group_id, component, milestone, status');
    expect(await helpShowsExamples(ctx.project, 'tasks', 'claim')).toBe(true);
  });
});
