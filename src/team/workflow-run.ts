import type { ResponseMode } from '../agent-api/task.js';
import { isSynapseError, type SynapseError } from '../errors.js';
import { answerRefs, fillAnswers, type Workflow } from './workflow-schema.js';

/** One step, ready to go: its answers filled in, its priority and mode settled. */
export interface OutgoingStep {
  /** 1-based. */
  step: number;
  target: string;
  message: string;
  priority: number;
  /** Undefined: the settings' default, as `synapse send` without a mode flag. */
  mode: ResponseMode | undefined;
}

/** What sending a step gave: the task, and its answer when the step waited for one. */
interface Sent {
  agent_id: string;
  task_id: string;
  /** The task's status when the step finished (`completed` after a wait; `submitted`/`working` otherwise). */
  status: string;
  answer: string | null;
  /** Set when a waited-for task ended other than completed. */
  error: { code: string; message: string } | null;
}

/** How the runner reaches agents; the CLI implements it with `synapse send`'s and `synapse start`'s own code. */
export interface StepPort {
  send(step: OutgoingStep): Promise<Sent>;
  /** Whether `target` names a running agent now. */
  isRunning(target: string): boolean;
  /** Starts an agent of profile `target` in the background; resolves with its agent id. */
  spawn(target: string): Promise<string>;
}

export interface StepResult {
  step: number;
  target: string;
  status: 'ok' | 'failed' | 'skipped' | 'dry-run';
  priority: number;
  response_mode: ResponseMode | null;
  /** The message as sent (or, in a dry run, as written). */
  message: string;
  agent_id: string | null;
  task_id: string | null;
  task_status: string | null;
  answer: string | null;
  /** The agent auto-spawn started for this step (a dry run: the profile it would start). */
  spawned: string | null;
  error: { code: string; message: string } | null;
}

export interface RunOptions {
  dryRun?: boolean;
  continueOnError?: boolean;
  /** `--auto-spawn`: as if the workflow said `auto_spawn: true`. */
  autoSpawn?: boolean;
  /** Called when a step starts (before anything is sent) and when it ends. */
  onStepStart?: (step: OutgoingStep, of: number, spawning: boolean) => void;
  onStepEnd?: (result: StepResult, of: number) => void;
}

export interface RunSummary {
  workflow: string;
  dry_run: boolean;
  ok: boolean;
  steps: StepResult[];
}

function errorOf(err: SynapseError): { code: string; message: string } {
  return { code: err.code, message: err.message };
}

/**
 * Runs a workflow's steps in order. A step that fails stops the run (the rest are `skipped`)
 * unless `continueOnError`; a step that takes `{{steps.N.answer}}` from a step without an answer
 * fails. Errors that are not a step's own (Ctrl-C while waiting) end the run at once.
 */
export async function runWorkflow(wf: Workflow, port: StepPort, opts: RunOptions = {}): Promise<RunSummary> {
  const answers = new Map<number, string>();
  const results: StepResult[] = [];
  let stopped = false;
  for (const [i, step] of wf.steps.entries()) {
    const n = i + 1;
    const base = { step: n, target: step.target, priority: step.priority ?? 3, response_mode: step.response_mode ?? null };
    const autoSpawn = step.auto_spawn ?? (opts.autoSpawn || wf.auto_spawn === true);
    if (stopped) {
      results.push({ ...base, status: 'skipped', message: step.message, ...nothing, spawned: null, error: null });
      continue;
    }
    const missing = answerRefs(step.message).filter((ref) => !answers.has(ref));
    const message = opts.dryRun ? step.message : fillAnswers(step.message, (ref) => answers.get(ref) ?? '');
    const outgoing: OutgoingStep = { step: n, target: step.target, message, priority: base.priority, mode: step.response_mode };
    const spawning = autoSpawn && !port.isRunning(step.target);
    opts.onStepStart?.(outgoing, wf.steps.length, spawning);
    let result: StepResult;
    if (opts.dryRun) {
      result = { ...base, status: 'dry-run', message, ...nothing, spawned: spawning ? step.target : null, error: null };
    } else if (missing.length > 0) {
      const error = { code: 'blocked', message: `step ${missing[0]} has no answer to pass on (it did not complete)` };
      result = { ...base, status: 'failed', message, ...nothing, spawned: null, error };
    } else {
      result = await sendStep(outgoing, base, spawning, port);
      if (result.status === 'ok' && result.answer !== null) answers.set(n, result.answer);
    }
    results.push(result);
    opts.onStepEnd?.(result, wf.steps.length);
    if (result.status === 'failed' && !opts.continueOnError) stopped = true;
  }
  return { workflow: wf.name, dry_run: opts.dryRun === true, ok: results.every((r) => r.status !== 'failed' && r.status !== 'skipped'), steps: results };
}

const nothing = { agent_id: null, task_id: null, task_status: null, answer: null } as const;

async function sendStep(
  outgoing: OutgoingStep,
  base: Omit<StepResult, 'status' | 'message' | 'agent_id' | 'task_id' | 'task_status' | 'answer' | 'spawned' | 'error'>,
  spawning: boolean,
  port: StepPort,
): Promise<StepResult> {
  let spawned: string | null = null;
  try {
    if (spawning) spawned = await port.spawn(outgoing.target);
    const sent = await port.send(outgoing);
    return {
      ...base,
      status: sent.error ? 'failed' : 'ok',
      message: outgoing.message,
      agent_id: sent.agent_id,
      task_id: sent.task_id,
      task_status: sent.status,
      answer: sent.answer,
      spawned,
      error: sent.error,
    };
  } catch (err) {
    if (!isSynapseError(err)) throw err;
    return { ...base, status: 'failed', message: outgoing.message, ...nothing, spawned, error: errorOf(err) };
  }
}
