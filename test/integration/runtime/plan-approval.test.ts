import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { artifactText, cleanupAll, getJson, postJson, runCli, startHeadless, tempHome, textMessage, waitFor, waitForTask } from '../../support/synapse.js';

/**
 * Plan approval on the echo agent: `[[plan: TEXT]]` makes it draw a plan-approval screen like
 * Claude Code's plan mode; the echo profile's rules read it, so no API key is needed.
 */
describe('plan approval (echo agent, real processes)', () => {
  const t = tempHome();
  afterEach(cleanupAll);
  afterAll(() => t.cleanup());

  async function awaitingPlan(endpoint: string, id: string) {
    return waitFor(
      async () => {
        const task = (await getJson(`${endpoint}/tasks/${id}`)).body;
        return task.status === 'input_required' && task.metadata.plan ? task : null;
      },
      5000,
      'input_required with metadata.plan',
    );
  }

  it('shows the plan as input-required with metadata.plan.text; POST /tasks/{id}/approve sends the approve key and the task completes', async () => {
    const a = await startHeadless('echo', { env: t.env });
    const sent = await postJson(`${a.endpoint}/tasks/send`, textMessage('refactor [[plan: rename util.ts\nupdate the imports]]'));
    const task = await awaitingPlan(a.endpoint, sent.body.task.id);
    expect(task.metadata.plan).toEqual({ text: 'rename util.ts\nupdate the imports' });
    expect(task.metadata.permission ?? null).toBeNull();
    expect((await getJson(`${a.endpoint}/status`)).body.status).toBe('WAITING');

    const r = await postJson(`${a.endpoint}/tasks/${task.id}/approve`, {});
    expect(r).toMatchObject({ status: 200, body: { status: 'approved', task_id: task.id } });
    // A second answer before the screen has moved on is refused: its key would land in the prompt.
    const twice = await postJson(`${a.endpoint}/tasks/${task.id}/reject`, { reason: 'changed my mind' });
    expect(twice.status).toBe(409);
    expect(twice.body.error.code).toBe('not_awaiting_plan');
    const done = await waitForTask(a.endpoint, task.id);
    expect(done.status).toBe('completed');
    // The echo CLI got its approve key (1): it says so and then does the work.
    expect(artifactText(done)).toContain('plan approved');
    expect(artifactText(done)).toContain('ECHO: ');
    expect(artifactText(done)).toContain('(plan approved)');
    expect(done.metadata.plan).toBeNull();
  });

  it('synapse reject --reason: the CLI gets the reject key, and the reason is its next message, ahead of one queued before', async () => {
    const a = await startHeadless('echo', { env: t.env, args: ['--name', 'planner'] });
    const sent = await postJson(`${a.endpoint}/tasks/send`, textMessage('[[plan: delete the old API]]'));
    const task = await awaitingPlan(a.endpoint, sent.body.task.id);
    // Queued while the plan screen shows (priority 3): the reason must still go in first.
    const queued = await postJson(`${a.endpoint}/tasks/send`, textMessage('an unrelated question'));

    const r = await runCli(['reject', task.id.slice(0, 8), '--reason', 'keep the old API for one release', '--json'], { env: t.env });
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ status: 'rejected', task_id: task.id, reason_task_id: expect.any(String) });

    const rejected = await waitForTask(a.endpoint, task.id);
    expect(rejected.status).toBe('completed');
    expect(artifactText(rejected)).toContain('plan rejected');
    expect(artifactText(rejected)).not.toContain('ECHO:');

    const reason = await waitForTask(a.endpoint, out.reason_task_id);
    expect(reason.metadata.plan_rejected).toBe(task.id);
    expect(artifactText(reason)).toContain('Your plan was rejected. Reason: keep the old API for one release');
    const other = await waitForTask(a.endpoint, queued.body.task.id);
    expect(artifactText(other)).toContain('an unrelated question');
    // Delivered in that order: the reason was typed in before the message queued earlier.
    expect(Date.parse(reason.metadata.pty_written_at)).toBeLessThanOrEqual(Date.parse(other.metadata.pty_written_at));
    const order = (await getJson(`${a.endpoint}/screen`)).body.lines.join('\n');
    expect(order.indexOf('Your plan was rejected')).toBeLessThan(order.indexOf('an unrelated question'));
  });

  it('synapse approve finds the agent by the task id; refusals: unknown task 404, no plan 409 not_awaiting_plan', async () => {
    const a = await startHeadless('echo', { env: t.env });
    const sent = await postJson(`${a.endpoint}/tasks/send`, textMessage('[[plan: one step]]'));
    const task = await awaitingPlan(a.endpoint, sent.body.task.id);
    const ok = await runCli(['approve', task.id], { env: t.env });
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain(`approved the plan of task ${task.id.slice(0, 8)}`);
    expect(artifactText(await waitForTask(a.endpoint, task.id))).toContain('(plan approved)');

    // Answered already: nothing awaits a plan.
    const again = await postJson(`${a.endpoint}/tasks/${task.id}/approve`, {});
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('not_awaiting_plan');
    const cli = await runCli(['reject', task.id, '--reason', 'too late'], { env: t.env });
    expect(cli.code).toBe(1);
    expect(cli.stderr).toContain('not awaiting plan approval');

    // A permission dialog is input-required too, but not a plan.
    const asking = await postJson(`${a.endpoint}/tasks/send`, textMessage('[[ask: rm -rf build]]'));
    await waitFor(async () => ((await getJson(`${a.endpoint}/tasks/${asking.body.task.id}`)).body.status === 'input_required' ? true : null), 5000, 'dialog');
    const notPlan = await postJson(`${a.endpoint}/tasks/${asking.body.task.id}/reject`, { reason: 'no' });
    expect(notPlan.status).toBe(409);
    expect(notPlan.body.error.code).toBe('not_awaiting_plan');
    await postJson(`${a.endpoint}/tasks/${asking.body.task.id}/respond`, { choice: 'deny' });

    const unknown = await postJson(`${a.endpoint}/tasks/no-such-task/approve`, {});
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('task_not_found');
    const unknownCli = await runCli(['approve', 'no-such-task'], { env: t.env });
    expect(unknownCli.code).toBe(1);
    expect(unknownCli.stderr).toContain("no running agent has a task 'no-such-task'");
    // A reason is non-empty text.
    for (const body of [{ reason: '' }, { reason: { text: 'x' } }]) expect((await postJson(`${a.endpoint}/tasks/${task.id}/reject`, body)).status).toBe(400);
  });
});
