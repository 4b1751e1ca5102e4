import fs from 'node:fs';
import path from 'node:path';
import { projectSynapseDir, synapseHome, type Env } from '../config/paths.js';
import { SynapseError } from '../errors.js';
import { readDirNames } from '../json-file.js';
import { checkWorkflowName, parseWorkflow, type Workflow } from './workflow-schema.js';

/** Where workflows live: `project` (`.synapse/workflows/`, wins on a name) and `user` (`~/.synapse/workflows/`). */
export type WorkflowScope = 'project' | 'user';
export const WORKFLOW_SCOPES: readonly WorkflowScope[] = ['project', 'user'];

export interface WorkflowContext {
  env: Env;
  /** The project directory (`.synapse/workflows/`, `.claude/skills/` and `.agents/skills/` are under it). */
  cwd: string;
}

/** One workflow file; `workflow` is null when the file does not parse (then `error` says why). */
export interface WorkflowEntry {
  name: string;
  scope: WorkflowScope;
  file: string;
  workflow: Workflow | null;
  error: string | null;
  /** A project workflow of the same name hides this user one. */
  shadowed: boolean;
}

function workflowDir(scope: WorkflowScope, ctx: WorkflowContext): string {
  return path.join(scope === 'project' ? projectSynapseDir(ctx.cwd) : synapseHome(ctx.env), 'workflows');
}

function fileOf(dir: string, name: string): string | null {
  for (const ext of ['.yaml', '.yml']) {
    const file = path.join(dir, `${name}${ext}`);
    if (fs.existsSync(file)) return file;
  }
  return null;
}

function readEntry(file: string, name: string, scope: WorkflowScope): WorkflowEntry {
  try {
    const workflow = parseWorkflow(fs.readFileSync(file, 'utf8'), file, name);
    return { name, scope, file, workflow, error: null, shadowed: false };
  } catch (err) {
    return { name, scope, file, workflow: null, error: (err as Error).message, shadowed: false };
  }
}

/** Every workflow file of the given scopes (both by default), project first, names sorted. */
export function listWorkflows(ctx: WorkflowContext, scopes: readonly WorkflowScope[] = WORKFLOW_SCOPES): WorkflowEntry[] {
  const out: WorkflowEntry[] = [];
  const seen = new Set<string>();
  for (const scope of WORKFLOW_SCOPES.filter((s) => scopes.includes(s))) {
    const dir = workflowDir(scope, ctx);
    const names = [...new Set(readDirNames(dir).flatMap((f) => /^(.+)\.ya?ml$/.exec(f)?.slice(1) ?? []))].sort();
    for (const name of names) {
      const file = fileOf(dir, name);
      if (!file) continue;
      const entry = readEntry(file, name, scope);
      entry.shadowed = seen.has(name);
      seen.add(name);
      out.push(entry);
    }
  }
  return out;
}

/** The workflow `name` (project before user, or only `scope`); a missing or invalid one is an error that says what to do. */
export function loadWorkflow(name: string, ctx: WorkflowContext, scope?: WorkflowScope): WorkflowEntry & { workflow: Workflow } {
  checkWorkflowName(name);
  for (const s of scope ? [scope] : WORKFLOW_SCOPES) {
    const file = fileOf(workflowDir(s, ctx), name);
    if (!file) continue;
    const entry = readEntry(file, name, s);
    if (!entry.workflow) throw new SynapseError('invalid_input', `${entry.error} (fix the file, then run it again)`, { file });
    return entry as WorkflowEntry & { workflow: Workflow };
  }
  throw new SynapseError(
    'not_found',
    `no workflow "${name}"${scope ? ` in the ${scope} scope` : ''} (looked in ${(scope ? [scope] : WORKFLOW_SCOPES).map((s) => workflowDir(s, ctx)).join(' and ')}); create it with \`synapse workflow create ${name}\``,
    { name },
  );
}

const TEMPLATE = (name: string) => `# A Synapse workflow: \`synapse workflow run ${name}\` sends these steps in order.
# guides/workflows.md describes every field.
name: ${name}
description: What this workflow does, in one sentence.
# trigger: when an agent should run it (a workflow with a trigger gets a generated skill)
# auto_spawn: true   # start a target that is not running (its target is the profile)
steps:
  - target: claude            # agent name, id, type-port or type
    message: Review the changes in src/ and list what must change.
    priority: 3               # 1-5; 5 interrupts the target first
    response_mode: wait       # wait | notify | silent
  - target: codex
    message: |
      Fix what the review found:
      {{steps.1.answer}}
    response_mode: wait
`;

/** `synapse workflow create`: writes the template (never over an existing file unless `force`). */
export function createWorkflow(name: string, scope: WorkflowScope, ctx: WorkflowContext, force = false): string {
  checkWorkflowName(name);
  const dir = workflowDir(scope, ctx);
  const existing = fileOf(dir, name);
  if (existing && !force) throw new SynapseError('conflict', `${existing} exists already; edit it, or pass --force to start over`, { file: existing });
  const file = existing ?? path.join(dir, `${name}.yaml`);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(file, TEMPLATE(name));
  return file;
}

/** The workflow file `name` in `scope` (or the one that wins), for `delete`; none is an error. */
export function workflowFile(name: string, ctx: WorkflowContext, scope?: WorkflowScope): { file: string; scope: WorkflowScope } {
  checkWorkflowName(name);
  for (const s of scope ? [scope] : WORKFLOW_SCOPES) {
    const file = fileOf(workflowDir(s, ctx), name);
    if (file) return { file, scope: s };
  }
  throw new SynapseError('not_found', `no workflow "${name}"${scope ? ` in the ${scope} scope` : ''}; see \`synapse workflow list\``, { name });
}
