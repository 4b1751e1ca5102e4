// Issue 21 §7 against the real Claude Code 2.1.197 under `synapse claude --headless` and the
// offline mock model: with `synapse hooks install claude`, a Write the model asks for on a file
// another agent holds is blocked by the PreToolUse hook, and the file is unchanged.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, type TestContext } from 'vitest';
import { BIN, cleanupE2E, modelTurns, postJson, screenText, send, startAgent, startMock, traceSummary, waitForState } from './harness.js';

async function afterScenario(ctx: TestContext): Promise<void> {
  if (ctx.task.result?.state === 'fail') console.log(traceSummary());
  await cleanupE2E();
}

describe('synapse claude (real Claude Code): locks that hold', () => {
  afterEach(afterScenario);

  it('a model-requested Write into a tree another agent locked is blocked by the installed hook; no file is written', async () => {
    const mock = await startMock();
    let target = '';
    const agent = await startAgent('claude', mock, {
      setup: (home, env) => {
        // A new file in a locked tree: Claude Code writes a new file without reading it first.
        fs.mkdirSync(path.join(home.cwd, 'locked'));
        target = path.join(home.cwd, 'locked', 'new.txt');
        const run = (args: string[]) => {
          const r = spawnSync(process.execPath, [BIN, ...args], { cwd: home.cwd, env, encoding: 'utf8' });
          expect(r.status, `${args.join(' ')}: ${r.stderr}`).toBe(0);
        };
        // Another agent (a name, no process: TTL only) holds the file; the hook goes in as a user would.
        run(['file-safety', 'lock', 'locked/**', 'other-agent', '--pid', '0', '--intent', 'rewriting it']);
        run(['hooks', 'install', 'claude']);
      },
    });
    const task = await send(agent, `overwrite it [[mcp: Write {"file_path": ${JSON.stringify(target)}, "content": "changed by the model\\n"}]]`);
    const t = await waitForState(agent, task.id, ['input_required', 'completed', 'failed', 'canceled']);
    if (t.status === 'input_required') expect((await postJson(`${agent.endpoint}/tasks/${task.id}/respond`, { choice: 'approve' })).status).toBe(200);
    const done = await waitForState(agent, task.id);
    expect(done.status, await screenText(agent)).toBe('completed');
    expect(fs.existsSync(target), 'the blocked write made no file').toBe(false);
    // The model got the hook's refusal as the tool result.
    const refusal = modelTurns(mock).find((r) => JSON.stringify(r.body).includes('Blocked by Synapse file safety'));
    expect(refusal, 'the tool result names the block').toBeTruthy();
    expect(JSON.stringify(refusal!.body)).toContain('other-agent');
  }, 90_000);

  it('the control: without the hook the same Write goes through (the lock alone is advisory)', async () => {
    const mock = await startMock();
    let target = '';
    const agent = await startAgent('claude', mock, {
      setup: (home, env) => {
        fs.mkdirSync(path.join(home.cwd, 'locked'));
        target = path.join(home.cwd, 'locked', 'new.txt');
        const r = spawnSync(process.execPath, [BIN, 'file-safety', 'lock', 'locked/**', 'other-agent', '--pid', '0'], { cwd: home.cwd, env, encoding: 'utf8' });
        expect(r.status, r.stderr).toBe(0);
      },
    });
    const task = await send(agent, `write it [[mcp: Write {"file_path": ${JSON.stringify(target)}, "content": "written\\n"}]]`);
    const t = await waitForState(agent, task.id, ['input_required', 'completed', 'failed', 'canceled']);
    if (t.status === 'input_required') expect((await postJson(`${agent.endpoint}/tasks/${task.id}/respond`, { choice: 'approve' })).status).toBe(200);
    expect((await waitForState(agent, task.id)).status).toBe('completed');
    expect(fs.readFileSync(target, 'utf8')).toBe('written\n');
  }, 90_000);
});
