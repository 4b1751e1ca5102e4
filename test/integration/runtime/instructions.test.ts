import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { cleanupAll, getJson, runCli, startHeadless, tempHome, waitFor, waitForTask } from '../../support/synapse.js';

/** The start-up instruction a real echo agent gets, from the project's settings; sent again with `synapse instructions send`. */

const t = tempHome();
afterEach(async () => {
  await cleanupAll();
});
afterAll(() => t.cleanup());

const bootstrapText = async (endpoint: string): Promise<string> => {
  const tasks = (await getJson(`${endpoint}/tasks`)).body;
  return tasks.find((x: any) => x.metadata.kind === 'bootstrap').message.parts[0].text as string;
};

describe('start-up instructions from the settings', () => {
  it('the profile instruction with {{name}} {{role}} {{port}} filled in, proactive.md appended; `instructions send` sends it again', async () => {
    const project = fs.mkdtempSync(path.join(t.home, 'project-'));
    fs.mkdirSync(path.join(project, '.synapse'));
    fs.writeFileSync(
      path.join(project, '.synapse', 'settings.json'),
      JSON.stringify({ instructions: { echo: 'Hi {{name}}, the {{role}}, on {{port}}.' }, env: { SYNAPSE_PROACTIVE_MODE_ENABLED: true } }),
    );
    // The project's env (proactive mode) applies once trusted.
    expect((await runCli(['trust'], { env: t.env, cwd: project })).code).toBe(0);
    const a = await startHeadless('echo', { env: t.env, cwd: project, args: ['--name', 'alice', '--role', 'reviewer'] });
    const text = await bootstrapText(a.endpoint);
    expect(text).toMatch(new RegExp(`^Hi alice, the reviewer, on ${a.port}\\. \\[SYNAPSE PROACTIVE MODE\\]`));

    const preview = await runCli(['instructions', 'send', 'alice', '--preview', '--json'], { env: t.env, cwd: project });
    expect(preview.code, preview.stderr).toBe(0);
    expect(JSON.parse(preview.stdout)).toMatchObject({ target: a.agentId, text: expect.stringContaining(`Hi alice, the reviewer, on ${a.port}.`) });

    const sent = await runCli(['instructions', 'send', 'alice', '--json'], { env: t.env, cwd: project });
    expect(sent.code, sent.stderr).toBe(0);
    const taskId = JSON.parse(sent.stdout).task_id as string;
    expect((await waitForTask(a.endpoint, taskId, 15_000)).status).toBe('completed');
    const screen = await waitFor(
      async () => {
        const lines: string[] = (await getJson(`${a.endpoint}/screen`)).body.lines;
        return lines.filter((l) => l.includes(`Hi alice, the reviewer, on ${a.port}.`)).length >= 2 ? lines : null;
      },
      10_000,
      'the instruction typed in twice',
    );
    expect(screen.length).toBeGreaterThan(0);
  });
});
