import fs from 'node:fs';
import path from 'node:path';
import { peerTaskText } from '../../a2a/wire-client.js';
import { SynapseError, type ErrorCode } from '../../errors.js';
import { openRegistry } from '../../registry/lookup.js';
import { agentsNamed } from '../../registry/targets.js';
import { sanitizePeerText } from '../../runtime/sanitize.js';
import { runWorkflow, type OutgoingStep, type RunSummary, type StepPort, type StepResult } from '../../team/workflow-run.js';
import { syncWorkflowSkills, type SkillSync } from '../../team/workflow-skills.js';
import { createWorkflow, listWorkflows, loadWorkflow, workflowFile, type WorkflowContext, type WorkflowScope } from '../../team/workflow-store.js';
import { exitFor, ExitRequest } from '../exit.js';
import { printJson, println, type CommandIo } from '../io.js';
import { preview, renderTable } from '../table.js';
import { deliverMessage, parseTimeoutMs } from './send.js';

export interface ScopeFlags {
  project?: boolean;
  user?: boolean;
  json?: boolean;
}

export interface RunWorkflowFlags {
  dryRun?: boolean;
  continueOnError?: boolean;
  autoSpawn?: boolean;
  timeout?: string;
  from?: string;
  force?: boolean;
  json?: boolean;
}

const ctxOf = (io: CommandIo): WorkflowContext => ({ env: io.env, cwd: io.cwd });

/** `--project` / `--user` (at most one); none: both scopes. */
function scopeOf(flags: ScopeFlags): WorkflowScope | undefined {
  if (flags.project && flags.user) throw new SynapseError('usage', 'choose one of --project and --user');
  return flags.project ? 'project' : flags.user ? 'user' : undefined;
}

function reportSync(io: CommandIo, done: SkillSync): void {
  for (const p of done.written) println(io, `skill written: ${p}`);
  for (const p of done.removed) println(io, `skill removed (no workflow with a trigger): ${p}`);
  for (const s of done.skipped) println(io, `skill left alone: ${s.path} (${s.reason})`);
}

/** `synapse workflow create <name> [--user] [--force]`: a template to edit. */
export function createWorkflowCommand(name: string, flags: ScopeFlags & { force?: boolean }, io: CommandIo): void {
  const scope = scopeOf(flags) ?? 'project';
  const file = createWorkflow(name, scope, ctxOf(io), flags.force === true);
  const skills = syncWorkflowSkills(ctxOf(io), [scope], name);
  if (flags.json) return printJson(io, { name, scope, file, skills });
  println(io, `created ${file}: edit its steps, then \`synapse workflow run ${name} --dry-run\``);
  reportSync(io, skills);
}

/** `synapse workflow list [--project|--user]`. */
export function listWorkflowsCommand(flags: ScopeFlags, io: CommandIo): void {
  const scope = scopeOf(flags);
  const entries = listWorkflows(ctxOf(io), scope ? [scope] : undefined);
  if (flags.json)
    return printJson(
      io,
      entries.map((e) => ({
        name: e.name,
        scope: e.scope,
        file: e.file,
        shadowed: e.shadowed,
        steps: e.workflow?.steps.length ?? null,
        description: e.workflow?.description ?? null,
        trigger: e.workflow?.trigger ?? null,
        error: e.error,
      })),
    );
  if (entries.length === 0) return println(io, `no workflows (${scope ?? 'project or user'} scope); create one with \`synapse workflow create <name>\``);
  const rows = entries.map((e) => [
    e.name,
    e.scope + (e.shadowed ? ' (hidden)' : ''),
    e.workflow ? String(e.workflow.steps.length) : '-',
    e.workflow ? (e.workflow.trigger ? 'yes' : '-') : '-',
    e.workflow ? preview(sanitizePeerText(e.workflow.description ?? ''), 50) : `INVALID ${preview(e.error, 60)}`,
  ]);
  println(io, renderTable(['NAME', 'SCOPE', 'STEPS', 'SKILL', 'DESCRIPTION'], rows));
}

/** `synapse workflow show <name>`. */
export function showWorkflowCommand(name: string, flags: ScopeFlags, io: CommandIo): void {
  const { workflow: wf, file, scope } = loadWorkflow(name, ctxOf(io), scopeOf(flags));
  if (flags.json) return printJson(io, { ...wf, scope, file });
  const lines = [
    `${wf.name} (${scope}: ${file})`,
    ...(wf.description ? [`description: ${wf.description}`] : []),
    ...(wf.trigger ? [`trigger: ${wf.trigger} (has a generated skill)`] : []),
    ...(wf.auto_spawn ? ['auto_spawn: true'] : []),
    'steps:',
    ...wf.steps.map(
      (s, i) =>
        `  ${i + 1}. ${s.target}  (${s.response_mode ?? 'default mode'}, priority ${s.priority ?? 3}${s.auto_spawn !== undefined ? `, auto_spawn ${s.auto_spawn}` : ''})\n` +
        s.message
          .trimEnd()
          .split('\n')
          .map((l) => `       ${l}`)
          .join('\n'),
    ),
  ];
  println(io, sanitizePeerText(lines.join('\n')));
}

/** `synapse workflow delete <name> [--project|--user] [--force]`: the file and its generated skill. */
export async function deleteWorkflowCommand(name: string, flags: ScopeFlags & { force?: boolean }, io: CommandIo): Promise<void> {
  const { file, scope } = workflowFile(name, ctxOf(io), scopeOf(flags));
  if (!flags.force) {
    if (!io.isTerminal('stdin')) throw new SynapseError('usage', `delete ${file}? Not on a terminal: pass --force`);
    if (!(await io.confirm(`Delete ${file}?`))) return println(io, 'nothing deleted');
  }
  fs.rmSync(file, { force: true });
  const skills = syncWorkflowSkills(ctxOf(io), [scope], name);
  if (flags.json) return printJson(io, { deleted: file, skills });
  println(io, `deleted ${file}`);
  reportSync(io, skills);
}

/** `synapse workflow sync [--project|--user]`. */
export function syncWorkflowsCommand(flags: ScopeFlags, io: CommandIo): void {
  const scope = scopeOf(flags);
  const done = syncWorkflowSkills(ctxOf(io), scope ? [scope] : undefined);
  if (flags.json) return printJson(io, done);
  reportSync(io, done);
  println(io, `${done.written.length} written, ${done.unchanged.length} up to date, ${done.removed.length} removed, ${done.skipped.length} left alone`);
}

/** The runner's way to agents: `synapse send`'s delivery, the registry, and `synapse start`. */
function stepPort(flags: RunWorkflowFlags, io: CommandIo, progress: (text: string) => void): StepPort {
  const timeoutMs = parseTimeoutMs(flags.timeout);
  return {
    async send(step: OutgoingStep) {
      const d = await deliverMessage(
        step.target,
        step.message,
        {
          priority: step.priority,
          ...(step.mode ? { mode: step.mode } : {}),
          timeoutMs,
          ...(flags.from !== undefined ? { from: flags.from } : {}),
          ...(flags.force ? { force: true } : {}),
        },
        io,
      );
      const ended = d.done;
      const failed = ended !== null && ended.status !== 'completed';
      const why = ended?.error ?? { code: `task_${ended?.status ?? ''}`, message: ended?.status_message ?? `the task ended ${ended?.status ?? ''}` };
      return {
        agent_id: d.target.agent_id,
        task_id: d.task.id,
        status: ended?.status ?? d.task.status,
        answer: ended ? peerTaskText(ended) : null,
        error: failed ? why : null,
      };
    },
    isRunning: (target) => agentsNamed(openRegistry(io.env).scanLive().entries, target).length > 0,
    async spawn(target) {
      const { startBackground } = await import('./run-agent.js');
      const lines: string[] = [];
      await startBackground(target, [], {}, { ...io, out: (t) => void lines.push(t) });
      const started = lines.join('').split('\n')[0] ?? `started ${target}`;
      progress(`      ${started}\n`);
      return started;
    },
  };
}

function modeLabel(step: { mode?: string | undefined; response_mode?: string | null }): string {
  return step.mode ?? step.response_mode ?? 'default mode';
}

/** Text under a step's line, each line indented by `by` spaces (peer text sanitised). */
const indented = (text: string, by: number) =>
  sanitizePeerText(text)
    .trimEnd()
    .split('\n')
    .join(`\n${' '.repeat(by)}`);

function stepEndLine(r: StepResult): string {
  if (r.status === 'dry-run') return `      ${indented(r.message, 6)}\n`;
  if (r.status === 'failed') return `      FAILED ${r.error?.code ?? ''}: ${indented(r.error?.message ?? '', 8)}\n`;
  const answer = r.answer !== null ? `\n      answer: ${indented(r.answer, 14)}` : '';
  return `      ok: ${r.agent_id} task ${r.task_id?.slice(0, 8) ?? ''} ${r.task_status ?? ''}${answer}\n`;
}

function summaryLine(s: RunSummary): string {
  const count = (st: StepResult['status']) => s.steps.filter((r) => r.status === st).length;
  if (s.dry_run) return `workflow ${s.workflow}: dry run, ${s.steps.length} step(s), nothing sent`;
  const failed = s.steps.filter((r) => r.status === 'failed').map((r) => `step ${r.step} (${r.target})`);
  return `workflow ${s.workflow}: ${count('ok')} ok, ${count('failed')} failed${failed.length ? ` (${failed.join(', ')})` : ''}, ${count('skipped')} skipped, of ${s.steps.length}`;
}

/** `synapse workflow run <name> [--dry-run] [--continue-on-error] [--auto-spawn]`. */
export async function runWorkflowCommand(name: string, flags: RunWorkflowFlags & ScopeFlags, io: CommandIo): Promise<void> {
  const { workflow, file } = loadWorkflow(name, ctxOf(io), scopeOf(flags));
  // With --json, stdout holds the one JSON summary; the progress lines go to stderr.
  const progress = (text: string) => (flags.json ? io.err(text) : io.out(text));
  progress(`workflow ${workflow.name} (${path.relative(io.cwd, file) || file}): ${workflow.steps.length} step(s)${flags.dryRun ? ', dry run' : ''}\n`);
  const port = stepPort(flags, io, progress);
  const notRunning = (target: string) => (flags.dryRun && !port.isRunning(target) ? ' - not running now' : '');
  const summary = await runWorkflow(workflow, port, {
    dryRun: flags.dryRun === true,
    continueOnError: flags.continueOnError === true,
    autoSpawn: flags.autoSpawn === true,
    onStepStart: (step, of, spawning) =>
      progress(
        `[${step.step}/${of}] ${flags.dryRun ? 'would send' : 'send'} to ${step.target} (${modeLabel(step)}, priority ${step.priority})${spawning ? `, ${flags.dryRun ? 'would start' : 'starting'} it first (auto_spawn)` : notRunning(step.target)}\n`,
      ),
    onStepEnd: (result) => progress(stepEndLine(result)),
  });
  if (flags.json) printJson(io, summary);
  else println(io, summaryLine(summary));
  const failed = summary.steps.find((r) => r.status === 'failed');
  if (!failed) return;
  // As `synapse send`: a task that ended badly exits 5; a step that never got sent, by its error's code.
  throw new ExitRequest(failed.task_id ? 5 : exitFor(new SynapseError((failed.error?.code ?? 'internal') as ErrorCode, '')).code);
}
