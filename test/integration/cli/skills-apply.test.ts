import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { applySetCommand, loadInstruction } from '../../../src/cli/commands/skills/sets.js';
import type { CommandIo } from '../../../src/cli/io.js';
import { runCommand, runJson, type IoOptions } from '../../support/cli-io.js';
import { cleanupAll, getJson, startHeadless, tempHome, waitFor } from '../../support/synapse.js';

/**
 * `synapse skills apply <target> <set>` against a real running echo agent in a temp project: the
 * set's skills land where the agent's CLI reads them, and the agent receives the message that
 * tells it to load them (the echo agent answers with what it was typed).
 */

const t = tempHome();
let project: string;
beforeAll(() => {
  project = fs.realpathSync(fs.mkdtempSync(path.join(t.home, 'project-')));
  t.env.SYNAPSE_SKILLS_DIR = path.join(t.home, 'central-skills');
});
afterEach(cleanupAll);
afterAll(() => t.cleanup());

const io = (): IoOptions => ({ env: t.env, cwd: t.home });
const run = (command: (io: CommandIo) => Promise<void>) => runCommand(command, io());
const json = <T = any>(command: (io: CommandIo) => Promise<void>) => runJson<T>(command, io());

describe('synapse skills apply', () => {
  it('dry-run changes nothing; apply deploys the set in the agent’s project and the agent is told to load it', async () => {
    const agent = await startHeadless('echo', { env: t.env, cwd: project, args: ['--name', 'bob'] });
    const root = path.join(project, '.agents', 'skills');

    const plan = await json((c) => applySetCommand('bob', 'reviewer', { dryRun: true, json: true }, c));
    expect(plan).toMatchObject({ agent: agent.agentId, set: 'reviewer', dry_run: true });
    expect(plan.deploy.map((d: { to: string }) => d.to)).toEqual(['synapse-a2a', 'code-review', 'security-audit'].map((n) => `${root}/${n}`));
    expect(fs.existsSync(root)).toBe(false);

    const applied = await json((c) => applySetCommand('bob', 'reviewer', { json: true }, c));
    expect(applied.deployed.map((d: { to: string; changed: boolean }) => [d.to, d.changed])).toEqual(
      ['synapse-a2a', 'code-review', 'security-audit'].map((n) => [path.join(root, n), true]),
    );
    for (const n of ['synapse-a2a', 'code-review', 'security-audit']) expect(fs.existsSync(path.join(root, n, 'SKILL.md'))).toBe(true);

    const taskId = applied.message.task_id as string;
    expect(taskId).toBeTruthy();
    const done = await waitFor(
      async () => {
        const r = await getJson(`${agent.endpoint}/tasks/${taskId}`);
        return r.body?.status === 'completed' ? r.body : null;
      },
      15_000,
      'the load message to be delivered and answered',
    );
    // A message this long reaches the CLI as a file pointer; the file holds the text.
    const echoed = (done.artifacts as Array<{ data: string }>).map((a) => a.data).join('\n');
    const file = /Read the full message from (\S+)/.exec(echoed)?.[1];
    const answer = file ? fs.readFileSync(file, 'utf8') : echoed;
    expect(answer).toContain('The skill set "reviewer" is deployed for you in');
    expect(answer).toContain('synapse-a2a, code-review, security-audit');
    expect(loadInstruction('reviewer', root, ['a'])).toContain(root);

    const text = (await run((c) => applySetCommand('bob', 'reviewer', {}, c))).stdout;
    expect(text).toContain(`up to date: code-review -> ${path.join(root, 'code-review')}`);
    expect(text).toContain(`told bob (${agent.agentId}) to load skill set reviewer`);
  });

  it('a set naming a missing skill deploys nothing; an unknown agent or set is a clear error', async () => {
    const agent = await startHeadless('echo', { env: t.env, cwd: project, args: ['--name', 'carol'] });
    fs.mkdirSync(path.join(project, '.synapse'), { recursive: true });
    fs.writeFileSync(path.join(project, '.synapse', 'skill_sets.json'), JSON.stringify({ partial: { skills: ['test-first', 'not-there'] } }));
    const r = await run((c) => applySetCommand(agent.agentId, 'partial', {}, c));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('skill set "partial" names skills no scope has: not-there');
    expect(fs.existsSync(path.join(project, '.agents', 'skills', 'test-first'))).toBe(false);
    const nobody = await run((c) => applySetCommand('nobody', 'reviewer', {}, c));
    expect(nobody.code).toBe(3);
    const noSet = await run((c) => applySetCommand('carol', 'galactic', {}, c));
    expect(noSet.stderr).toContain('no skill set "galactic"');
  });
});
