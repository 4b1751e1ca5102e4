import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createWorkflowCommand,
  deleteWorkflowCommand,
  listWorkflowsCommand,
  showWorkflowCommand,
  syncWorkflowsCommand,
} from '../../../src/cli/commands/workflow-cli.js';
import type { CommandIo } from '../../../src/cli/io.js';
import { parseFrontMatter } from '../../../src/skills/front-matter.js';
import { runCommand, runJson } from '../../support/cli-io.js';
import { tempHome } from '../../support/synapse.js';

/**
 * `synapse workflow create|list|show|sync|delete` in-process, on real files in a temporary HOME
 * and project: generated skills carry the autogen marker, sync removes orphans and never touches
 * a skill folder without the marker.
 */

const t = tempHome();
afterAll(() => t.cleanup());

function newProject(): string {
  return fs.mkdtempSync(path.join(t.home, 'project-'));
}

const io = (cwd: string) => ({ env: t.env, cwd });
const skillFile = (cwd: string, dir: '.claude' | '.agents', name: string) => path.join(cwd, dir, 'skills', name, 'SKILL.md');

function writeWorkflow(cwd: string, name: string, yaml: string): void {
  fs.mkdirSync(path.join(cwd, '.synapse', 'workflows'), { recursive: true });
  fs.writeFileSync(path.join(cwd, '.synapse', 'workflows', `${name}.yaml`), yaml);
}

function handWritten(cwd: string, dir: '.claude' | '.agents', name: string): string {
  const file = skillFile(cwd, dir, name);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `---\nname: ${name}\ndescription: written by a person\n---\n\n# ${name}\n`);
  return file;
}

const triggered = (name: string, trigger = 'when a change is ready') =>
  `name: ${name}\ndescription: Review then fix\ntrigger: ${trigger}\nsteps:\n  - target: reviewer\n    message: review it\n    response_mode: wait\n`;

describe('workflow skills', () => {
  it('sync writes a marked SKILL.md for each workflow with a trigger, in .claude/skills and .agents/skills', async () => {
    const cwd = newProject();
    writeWorkflow(cwd, 'review-fix', triggered('review-fix'));
    writeWorkflow(cwd, 'no-trigger', 'name: no-trigger\nsteps:\n  - target: bob\n    message: hi\n');
    const done = await runJson((c: CommandIo) => syncWorkflowsCommand({ json: true }, c), io(cwd));
    expect(done.written.sort()).toEqual([path.join(cwd, '.agents', 'skills', 'review-fix'), path.join(cwd, '.claude', 'skills', 'review-fix')]);
    for (const dir of ['.claude', '.agents'] as const) {
      const text = fs.readFileSync(skillFile(cwd, dir, 'review-fix'), 'utf8');
      expect(text).toContain('<!-- synapse-workflow-autogen -->');
      expect(text).toContain('synapse workflow run review-fix');
      const fm = parseFrontMatter(text, 'SKILL.md');
      expect(fm.name).toBe('review-fix');
      expect(fm.description).toBe('Workflow: Review then fix. Use this skill when: when a change is ready. Runs `synapse workflow run review-fix`.');
    }
    expect(fs.existsSync(path.join(cwd, '.claude', 'skills', 'no-trigger'))).toBe(false);
    // A second sync writes nothing.
    const again = await runJson((c: CommandIo) => syncWorkflowsCommand({ json: true }, c), io(cwd));
    expect(again).toMatchObject({ written: [], removed: [], skipped: [] });
    expect(again.unchanged).toHaveLength(2);
  });

  it('sync removes generated skills whose workflow is gone or lost its trigger, and never touches unmarked skills', async () => {
    const cwd = newProject();
    writeWorkflow(cwd, 'keep', triggered('keep'));
    writeWorkflow(cwd, 'gone', triggered('gone'));
    writeWorkflow(cwd, 'untrigger', triggered('untrigger'));
    writeWorkflow(cwd, 'mine', triggered('mine'));
    const mine = handWritten(cwd, '.claude', 'mine'); // a person's skill with a workflow's name
    const other = handWritten(cwd, '.agents', 'other-skill'); // unrelated, no workflow
    const mineBefore = fs.readFileSync(mine, 'utf8');
    await runJson((c: CommandIo) => syncWorkflowsCommand({ json: true }, c), io(cwd));
    expect(fs.readFileSync(mine, 'utf8')).toBe(mineBefore);
    expect(fs.readFileSync(skillFile(cwd, '.agents', 'mine'), 'utf8')).toContain('synapse-workflow-autogen'); // no hand-written one there

    fs.rmSync(path.join(cwd, '.synapse', 'workflows', 'gone.yaml'));
    writeWorkflow(cwd, 'untrigger', 'name: untrigger\nsteps:\n  - target: bob\n    message: hi\n');
    fs.rmSync(path.join(cwd, '.synapse', 'workflows', 'mine.yaml'));
    const r = await runCommand((c: CommandIo) => syncWorkflowsCommand({}, c), io(cwd));
    expect(r.code, r.stderr).toBe(0);
    for (const dir of ['.claude', '.agents'] as const) {
      expect(fs.existsSync(path.join(cwd, dir, 'skills', 'gone'))).toBe(false);
      expect(fs.existsSync(path.join(cwd, dir, 'skills', 'untrigger'))).toBe(false);
      expect(fs.existsSync(skillFile(cwd, dir, 'keep'))).toBe(true);
    }
    expect(r.stdout).toContain(`skill removed (no workflow with a trigger): ${path.join(cwd, '.claude', 'skills', 'gone')}`);
    // The generated `mine` in .agents goes with its workflow; the person's in .claude and the unrelated skill stay byte for byte.
    expect(fs.existsSync(path.join(cwd, '.agents', 'skills', 'mine'))).toBe(false);
    expect(fs.readFileSync(mine, 'utf8')).toBe(mineBefore);
    expect(fs.existsSync(other)).toBe(true);
    expect(r.stdout).toMatch(/0 written, 2 up to date, 5 removed, 0 left alone\n$/);
  });

  it('a hand-written skill of the same name is left alone and reported', async () => {
    const cwd = newProject();
    const mine = handWritten(cwd, '.claude', 'clash');
    writeWorkflow(cwd, 'clash', triggered('clash'));
    const r = await runCommand((c: CommandIo) => syncWorkflowsCommand({}, c), io(cwd));
    expect(r.stdout).toContain(`skill left alone: ${path.dirname(mine)} (a skill of the same name without the autogen marker`);
    expect(fs.readFileSync(mine, 'utf8')).toContain('written by a person');
    expect(fs.readFileSync(skillFile(cwd, '.agents', 'clash'), 'utf8')).toContain('synapse-workflow-autogen');
  });

  it('user-scope workflows generate skills in the user folders', async () => {
    const cwd = newProject();
    fs.mkdirSync(path.join(t.env.SYNAPSE_HOME!, 'workflows'), { recursive: true });
    fs.writeFileSync(path.join(t.env.SYNAPSE_HOME!, 'workflows', 'standup.yaml'), triggered('standup', 'every morning'));
    try {
      await runJson((c: CommandIo) => syncWorkflowsCommand({ user: true, json: true }, c), io(cwd));
      expect(fs.readFileSync(path.join(t.home, '.claude', 'skills', 'standup', 'SKILL.md'), 'utf8')).toContain('Use this skill when: every morning');
      expect(fs.existsSync(path.join(cwd, '.claude', 'skills', 'standup'))).toBe(false);
    } finally {
      fs.rmSync(path.join(t.env.SYNAPSE_HOME!, 'workflows'), { recursive: true, force: true });
      await runJson((c: CommandIo) => syncWorkflowsCommand({ user: true, json: true }, c), io(cwd));
    }
    expect(fs.existsSync(path.join(t.home, '.claude', 'skills', 'standup'))).toBe(false);
  });
});

describe('workflow create, list, show, delete', () => {
  it('create writes a template that runs as is; list and show read it; delete removes it and its skill', async () => {
    const cwd = newProject();
    const created = await runJson((c: CommandIo) => createWorkflowCommand('review', { json: true }, c), io(cwd));
    expect(created).toMatchObject({ name: 'review', scope: 'project', file: path.join(cwd, '.synapse', 'workflows', 'review.yaml') });
    const again = await runCommand((c: CommandIo) => createWorkflowCommand('review', {}, c), io(cwd));
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('exists already; edit it, or pass --force');

    const listed = await runJson((c: CommandIo) => listWorkflowsCommand({ json: true }, c), io(cwd));
    expect(listed).toEqual([expect.objectContaining({ name: 'review', scope: 'project', steps: 2, error: null, shadowed: false })]);
    const shown = await runJson((c: CommandIo) => showWorkflowCommand('review', { json: true }, c), io(cwd));
    expect(shown.steps[1].message).toContain('{{steps.1.answer}}');

    // Give it a trigger: it gets a skill; delete takes both away (asks first on a terminal).
    fs.appendFileSync(created.file, 'trigger: when asked for a review\n');
    await runJson((c: CommandIo) => syncWorkflowsCommand({ json: true }, c), io(cwd));
    expect(fs.existsSync(skillFile(cwd, '.claude', 'review'))).toBe(true);
    const noTty = await runCommand((c: CommandIo) => deleteWorkflowCommand('review', {}, c), io(cwd));
    expect(noTty.code).toBe(1);
    expect(noTty.stderr).toContain('Not on a terminal: pass --force');
    const declined = await runCommand((c: CommandIo) => deleteWorkflowCommand('review', {}, c), { ...io(cwd), terminal: true, answers: [false] });
    expect(declined.stdout).toBe('nothing deleted\n');
    const deleted = await runCommand((c: CommandIo) => deleteWorkflowCommand('review', { force: true }, c), io(cwd));
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(fs.existsSync(created.file)).toBe(false);
    expect(fs.existsSync(path.join(cwd, '.claude', 'skills', 'review'))).toBe(false);
    expect(fs.existsSync(path.join(cwd, '.agents', 'skills', 'review'))).toBe(false);
  });

  it('list shows an invalid file with its error, and a project workflow hides a user one of the same name', async () => {
    const cwd = newProject();
    writeWorkflow(cwd, 'broken', 'name: broken\nsteps: []\n');
    writeWorkflow(cwd, 'shared', 'name: shared\nsteps:\n  - target: bob\n    message: project\n');
    fs.mkdirSync(path.join(t.env.SYNAPSE_HOME!, 'workflows'), { recursive: true });
    fs.writeFileSync(path.join(t.env.SYNAPSE_HOME!, 'workflows', 'shared.yaml'), 'name: shared\nsteps:\n  - target: bob\n    message: user\n');
    try {
      const listed = await runJson((c: CommandIo) => listWorkflowsCommand({ json: true }, c), io(cwd));
      expect(listed.map((e: { name: string; scope: string; shadowed: boolean }) => [e.name, e.scope, e.shadowed])).toEqual([
        ['broken', 'project', false],
        ['shared', 'project', false],
        ['shared', 'user', true],
      ]);
      expect(listed[0].error).toMatch(/field "steps"/);
      const table = await runCommand((c: CommandIo) => listWorkflowsCommand({}, c), io(cwd));
      expect(table.stdout).toMatch(/^NAME +SCOPE +STEPS +SKILL +DESCRIPTION\n/);
      expect(table.stdout).toMatch(/shared +user \(hidden\)/);
      const shown = await runJson((c: CommandIo) => showWorkflowCommand('shared', { json: true }, c), io(cwd));
      expect(shown.steps[0].message).toBe('project');
      const user = await runJson((c: CommandIo) => showWorkflowCommand('shared', { user: true, json: true }, c), io(cwd));
      expect(user.steps[0].message).toBe('user');
    } finally {
      fs.rmSync(path.join(t.env.SYNAPSE_HOME!, 'workflows'), { recursive: true, force: true });
    }
  });
});
