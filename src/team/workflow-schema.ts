import { Type, type Static } from 'typebox';
import { Value } from 'typebox/value';
import { parse as parseYaml } from 'yaml';
import { SynapseError } from '../errors.js';

/**
 * A workflow file (`.synapse/workflows/<name>.yaml`): steps sent in order, as `synapse send`
 * would send them. The shape is the original Synapse's (name, description, trigger, auto_spawn,
 * steps of target/message/priority/response_mode/auto_spawn), so its files read here too.
 */

/** A workflow name: also its file name and the name of its generated skill. */
const WORKFLOW_NAME = /^[a-z0-9][a-z0-9-]{0,63}$/;

const StepSchema = Type.Object(
  {
    target: Type.String({ minLength: 1, description: 'agent name, id, type-port or type (as `synapse send`)' }),
    message: Type.String({ minLength: 1, description: 'the text; {{steps.N.answer}} inserts the answer of an earlier --wait step' }),
    priority: Type.Optional(Type.Integer({ minimum: 1, maximum: 5, description: '1-5 (default 3); 5 interrupts the target first' })),
    response_mode: Type.Optional(Type.Union([Type.Literal('wait'), Type.Literal('notify'), Type.Literal('silent')])),
    auto_spawn: Type.Optional(Type.Boolean({ description: 'start the target (its name as a profile) when no such agent runs' })),
  },
  { additionalProperties: false },
);

const WorkflowSchema = Type.Object(
  {
    name: Type.String({ pattern: WORKFLOW_NAME.source, description: 'lowercase letters, digits and hyphens; the same as the file name' }),
    description: Type.Optional(Type.String()),
    trigger: Type.Optional(Type.String({ minLength: 1, description: 'when an agent should run it; a workflow with one gets a generated skill' })),
    auto_spawn: Type.Optional(Type.Boolean()),
    steps: Type.Array(StepSchema, { minItems: 1 }),
  },
  { additionalProperties: false },
);

export type Workflow = Static<typeof WorkflowSchema>;

export function checkWorkflowName(name: string): string {
  if (!WORKFLOW_NAME.test(name))
    throw new SynapseError('invalid_input', `"${name}" is not a workflow name: use lowercase letters, digits and hyphens (at most 64), e.g. review-and-test`);
  return name;
}

/** `{{steps.N.answer}}` (spaces allowed inside the braces); any other `{{steps…}}` is a mistake. */
const ANSWER_REF = /\{\{\s*steps\.(\d+)\.answer\s*\}\}/g;
const ANY_STEPS_REF = /\{\{\s*steps\b[^}]*\}\}/g;

/** The step numbers (1-based) a message takes answers from. */
export function answerRefs(message: string): number[] {
  return [...message.matchAll(ANSWER_REF)].map((m) => Number(m[1]));
}

/** The message with each `{{steps.N.answer}}` replaced by `answer(N)`. */
export function fillAnswers(message: string, answer: (step: number) => string): string {
  return message.replace(ANSWER_REF, (_, n: string) => answer(Number(n)));
}

/** Each `{{steps.N.answer}}` names an earlier step that waits for its answer; errors name the step. */
function checkRefs(wf: Workflow, file: string): void {
  wf.steps.forEach((step, i) => {
    const here = i + 1;
    const stray = [...step.message.matchAll(ANY_STEPS_REF)].map((m) => m[0]).filter((ref) => !new RegExp(ANSWER_REF.source).test(ref));
    if (stray.length > 0)
      throw new SynapseError('invalid_input', `${file}: step ${here} uses ${stray[0]}; the only placeholder is {{steps.N.answer}}`, {
        file,
        key: `steps.${here}`,
      });
    for (const n of answerRefs(step.message)) {
      const source = wf.steps[n - 1];
      if (n < 1 || n >= here || !source)
        throw new SynapseError('invalid_input', `${file}: step ${here} uses {{steps.${n}.answer}}, but only an earlier step (1-${here - 1}) has an answer`, {
          file,
          key: `steps.${here}`,
        });
      if (source.response_mode !== 'wait')
        throw new SynapseError('invalid_input', `${file}: step ${here} uses {{steps.${n}.answer}}; give step ${n} response_mode: wait so it has an answer`, {
          file,
          key: `steps.${n}.response_mode`,
        });
    }
  });
}

/** Parses and checks a workflow file's text; errors name the file and the field. */
export function parseWorkflow(text: string, file: string, expectedName?: string): Workflow {
  let data: unknown;
  try {
    data = parseYaml(text);
  } catch (err) {
    throw new SynapseError('invalid_input', `${file} is not YAML: ${(err as Error).message.split('\n')[0]}`, { file });
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data))
    throw new SynapseError('invalid_input', `${file}: a workflow is a YAML mapping with name and steps`, { file });
  const first = Value.Errors(WorkflowSchema, data)[0];
  if (first) {
    const params = first.params as { requiredProperties?: string[] };
    const required = params.requiredProperties?.[0];
    // An unknown key is reported at its own path, against the `additionalProperties: false` schema.
    const extra = first.schemaPath.endsWith('/additionalProperties');
    const key = [first.instancePath.replace(/^\//, '').replace(/\//g, '.'), required].filter(Boolean).join('.') || '(top level)';
    const why = extra ? 'is not a workflow field' : required ? 'is required' : first.message;
    throw new SynapseError('invalid_input', `${file}: field "${key}" ${why}`, { file, key });
  }
  const wf = data as Workflow;
  if (expectedName !== undefined && wf.name !== expectedName)
    throw new SynapseError('invalid_input', `${file}: name "${wf.name}" differs from the file name "${expectedName}"; make them the same`, {
      file,
      key: 'name',
    });
  checkRefs(wf, file);
  return wf;
}
