import { describe, expect, it } from 'vitest';
import { answerRefs, fillAnswers, parseWorkflow } from '../../../src/team/workflow-schema.js';
import { runWorkflow, type OutgoingStep, type StepPort } from '../../../src/team/workflow-run.js';
import { SynapseError } from '../../../src/errors.js';

const parse = (yaml: string) => parseWorkflow(yaml, 'wf.yaml');
const errorOf = (yaml: string): string => {
  try {
    parse(yaml);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('parsed');
};

describe('workflow files', () => {
  it("read the original Synapse's shape: name, description, trigger, auto_spawn, steps", () => {
    const wf = parse(`name: review-and-test
description: "Send review to Claude, then tests to Gemini"
trigger: when a change is ready
auto_spawn: true
steps:
  - target: claude
    message: "Review the changes in src/"
    priority: 4
    response_mode: wait
  - target: gemini
    message: "Tests for: {{ steps.1.answer }}"
    response_mode: silent
    auto_spawn: false
`);
    expect(wf.steps).toHaveLength(2);
    expect(wf.steps[0]).toEqual({ target: 'claude', message: 'Review the changes in src/', priority: 4, response_mode: 'wait' });
    expect(answerRefs(wf.steps[1]!.message)).toEqual([1]);
  });

  it('name the file and the field that is wrong', () => {
    expect(errorOf('name: x\nsteps: []\n')).toMatch(/^wf\.yaml: field "steps" /);
    expect(errorOf('name: x\nsteps:\n  - target: a\n')).toBe('wf.yaml: field "steps.0.message" is required');
    expect(errorOf('name: x\nsteps:\n  - target: a\n    message: m\n    priority: 9\n')).toMatch(/^wf\.yaml: field "steps\.0\.priority" /);
    expect(errorOf('name: x\nsteps:\n  - target: a\n    message: m\n    respons_mode: wait\n')).toBe(
      'wf.yaml: field "steps.0.respons_mode" is not a workflow field',
    );
    expect(errorOf('name: Bad_Name\nsteps:\n  - target: a\n    message: m\n')).toMatch(/^wf\.yaml: field "name" /);
    expect(errorOf('- a list\n')).toBe('wf.yaml: a workflow is a YAML mapping with name and steps');
    expect(errorOf('name: [unclosed\n')).toMatch(/^wf\.yaml is not YAML: /);
    expect(() => parseWorkflow('name: a\nsteps:\n  - target: a\n    message: m\n', 'b.yaml', 'b')).toThrow('name "a" differs from the file name "b"');
  });

  it('take answers only from an earlier step that waits for one', () => {
    const steps = (second: string, firstMode = 'wait') =>
      `name: x\nsteps:\n  - target: a\n    message: one\n    response_mode: ${firstMode}\n  - target: b\n    message: "${second}"\n`;
    expect(parse(steps('{{steps.1.answer}}')).steps).toHaveLength(2);
    expect(errorOf(steps('{{steps.2.answer}}'))).toBe('wf.yaml: step 2 uses {{steps.2.answer}}, but only an earlier step (1-1) has an answer');
    expect(errorOf(steps('{{steps.0.answer}}'))).toMatch(/step 2 uses \{\{steps\.0\.answer\}\}, but only an earlier step/);
    expect(errorOf(steps('{{steps.1.answer}}', 'silent'))).toBe('wf.yaml: step 2 uses {{steps.1.answer}}; give step 1 response_mode: wait so it has an answer');
    expect(errorOf(steps('{{steps.1.output}}'))).toBe('wf.yaml: step 2 uses {{steps.1.output}}; the only placeholder is {{steps.N.answer}}');
  });

  it('fill each placeholder with its answer, as is', () => {
    expect(fillAnswers('a {{steps.1.answer}} b {{ steps.2.answer }} {{steps.1.answer}}', (n) => `<${n}$&>`)).toBe('a <1$&> b <2$&> <1$&>');
  });
});

/** A port that records what it is asked; `fail` names targets that are not found. */
function fakePort(fail: string[] = [], running: string[] = []): StepPort & { sent: OutgoingStep[]; spawned: string[] } {
  const port = {
    sent: [] as OutgoingStep[],
    spawned: [] as string[],
    async send(step: OutgoingStep) {
      if (fail.includes(step.target)) throw new SynapseError('target_not_found', `no agent matches "${step.target}"`);
      port.sent.push(step);
      return {
        agent_id: `id-${step.target}`,
        task_id: `t${step.step}`,
        status: 'completed',
        answer: step.mode === 'wait' ? `answer ${step.step}` : null,
        error: null,
      };
    },
    isRunning: (target: string) => running.includes(target) || port.spawned.includes(target),
    async spawn(target: string) {
      port.spawned.push(target);
      return `started ${target}`;
    },
  };
  return port;
}

describe('runWorkflow', () => {
  const wf = parse(`name: x
steps:
  - target: a
    message: one
    response_mode: wait
  - target: b
    message: "got {{steps.1.answer}}"
    auto_spawn: true
  - target: c
    message: three
`);

  it('sends in order with the answers filled in; starts an auto_spawn target that is not running', async () => {
    const port = fakePort([], ['a', 'c']);
    const s = await runWorkflow(wf, port);
    expect(s.ok).toBe(true);
    expect(port.sent.map((x) => [x.target, x.message, x.priority, x.mode])).toEqual([
      ['a', 'one', 3, 'wait'],
      ['b', 'got answer 1', 3, undefined],
      ['c', 'three', 3, undefined],
    ]);
    expect(port.spawned).toEqual(['b']);
    expect(s.steps[1]!.spawned).toBe('started b');
  });

  it('a dry run sends and starts nothing', async () => {
    const port = fakePort();
    const s = await runWorkflow(wf, port, { dryRun: true, autoSpawn: true });
    expect(port.sent).toEqual([]);
    expect(port.spawned).toEqual([]);
    expect(s.steps.map((x) => [x.status, x.spawned])).toEqual([
      ['dry-run', 'a'],
      ['dry-run', 'b'],
      ['dry-run', 'c'],
    ]);
  });

  it('stops at a failed step unless told to go on; a step that needs a missing answer fails', async () => {
    const stopped = await runWorkflow(wf, fakePort(['a'], ['b', 'c']));
    expect(stopped.ok).toBe(false);
    expect(stopped.steps.map((x) => x.status)).toEqual(['failed', 'skipped', 'skipped']);
    const goOn = await runWorkflow(wf, fakePort(['a'], ['b', 'c']), { continueOnError: true });
    expect(goOn.steps.map((x) => x.status)).toEqual(['failed', 'failed', 'ok']);
    expect(goOn.steps[1]!.error).toEqual({ code: 'blocked', message: 'step 1 has no answer to pass on (it did not complete)' });
  });

  it('an error that is not a step failure (Ctrl-C while waiting) ends the run', async () => {
    const port = fakePort();
    port.send = async () => {
      throw new Error('interrupted');
    };
    await expect(runWorkflow(wf, port)).rejects.toThrow('interrupted');
  });
});
