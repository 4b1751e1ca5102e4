import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupAll, getJson, postJson, startHeadless, tempHome, textMessage, waitFor, waitForTask } from '../../support/synapse.js';

/** Quality gates (settings `hooks`) on a real echo agent. */

const homes: { cleanup: () => void }[] = [];
afterEach(async () => {
  await cleanupAll();
  for (const h of homes.splice(0)) h.cleanup();
});

function setup(user: unknown, projectSettings?: unknown) {
  const t = tempHome();
  homes.push(t);
  fs.mkdirSync(t.env.SYNAPSE_HOME!, { recursive: true });
  fs.writeFileSync(path.join(t.env.SYNAPSE_HOME!, 'settings.json'), JSON.stringify(user));
  const project = path.join(t.home, 'project');
  fs.mkdirSync(path.join(project, '.synapse'), { recursive: true });
  if (projectSettings) fs.writeFileSync(path.join(project, '.synapse', 'settings.json'), JSON.stringify(projectSettings));
  return { t, project };
}

async function sendAndFinish(endpoint: string, text: string): Promise<any> {
  const sent = await postJson(`${endpoint}/tasks/send`, textMessage(text));
  expect(sent.status).toBe(202);
  return waitForTask(endpoint, sent.body.task.id, 15_000);
}

describe('hooks.on_task_completed', () => {
  it('a non-zero exit fails the task with the code HOOK_FAILED and the command output', async () => {
    const { t, project } = setup({ hooks: { on_task_completed: 'echo "3 tests failing in $SYNAPSE_TASK_ID" >&2; exit 3' } });
    const a = await startHeadless('echo', { env: t.env, cwd: project });
    const task = await sendAndFinish(a.endpoint, 'make the change');
    expect(task.status).toBe('failed');
    expect(task.error.code).toBe('HOOK_FAILED');
    expect(task.error.message).toContain(`hooks.on_task_completed failed (exit 3): 3 tests failing in ${task.id}`);
    expect(task.error.data).toMatchObject({ exit_code: 3 });
  });

  it('exit 0 lets the task complete', async () => {
    const { t, project } = setup({ hooks: { on_task_completed: 'true' } });
    const a = await startHeadless('echo', { env: t.env, cwd: project });
    expect((await sendAndFinish(a.endpoint, 'fine')).status).toBe('completed');
  });

  it("a project file's hook runs only when trusted (here: SYNAPSE_TRUST_PROJECT_HOOKS=1 trusts every project)", async () => {
    const { t, project } = setup({}, { hooks: { on_task_completed: 'touch ran; exit 1' } });
    const untrusted = await startHeadless('echo', { env: t.env, cwd: project });
    expect((await sendAndFinish(untrusted.endpoint, 'not gated')).status).toBe('completed');
    expect(fs.existsSync(path.join(project, 'ran'))).toBe(false);
    expect(untrusted.output()).toContain("NOT APPLIED: hooks.on_task_completed of the project's settings (not trusted)");
    await untrusted.stop();
    const trusted = await startHeadless('echo', { env: { ...t.env, SYNAPSE_TRUST_PROJECT_HOOKS: '1' }, cwd: project });
    expect((await sendAndFinish(trusted.endpoint, 'gated')).status).toBe('failed');
    expect(fs.existsSync(path.join(project, 'ran'))).toBe(true);
  });
});

describe('hooks.on_idle', () => {
  it('while it fails the agent is not reported READY; once it passes, it is', async () => {
    const { t, project } = setup({ hooks: { on_idle: 'test -f ok || { echo "lint: 2 errors"; exit 1; }' } });
    const a = await startHeadless('echo', { env: t.env, cwd: project });
    await waitFor(() => a.output().includes('hooks.on_idle failed (exit 1)'), 10_000, 'the idle hook to fail');
    expect(a.output()).toContain('lint: 2 errors');
    expect((await getJson(`${a.endpoint}/status`)).body.status).toBe('PROCESSING');
    fs.writeFileSync(path.join(project, 'ok'), '');
    await sendAndFinish(a.endpoint, 'fixed');
    await waitFor(async () => ['READY', 'DONE'].includes((await getJson(`${a.endpoint}/status`)).body.status), 10_000, 'READY once the hook passes');
  });
});
