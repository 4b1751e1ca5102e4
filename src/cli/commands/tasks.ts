import type { Command } from 'commander';
import type { BoardStore, BoardTask, TaskGroupField } from '../../store/board-store.js';
import type { CanvasStore } from '../../store/canvas.js';
import { SynapseError } from '../../errors.js';
import { printJson, println, processIo, type CommandIo } from '../io.js';
import { callerIdentity, examples, parsePositiveInt, projectDir, splitList } from './store-cli.js';

/**
 * `synapse tasks …`: one exported function per subcommand, called by commander with the parsed
 * arguments and options. The board module (better-sqlite3) is imported only when one runs.
 */

/** Opens the board on the configured backend (loading its driver only now), runs `fn`, closes it. */
async function withBoard<T>(io: CommandIo, fn: (board: BoardStore) => Promise<T>): Promise<T> {
  const lib = await import('../../store/board-store.js');
  return lib.withBoard(projectDir(io), fn, { env: io.env });
}

async function names(env: NodeJS.ProcessEnv): Promise<Map<string, string>> {
  const { agentNameMap } = await import('../../registry/lookup.js');
  return agentNameMap(env);
}

/** A registered agent's name becomes its agent id, so the board links to the agent itself. */
async function canonicalAgent(env: NodeJS.ProcessEnv, idOrName: string): Promise<string> {
  const { agentIdOrName } = await import('../../registry/lookup.js');
  return agentIdOrName(idOrName, env);
}

function describe(t: BoardTask, nameMap: Map<string, string>): string {
  const who = (id: string | null) => (id ? (nameMap.has(id) ? `${nameMap.get(id)} (${id})` : id) : '-');
  const lines = [
    `id:           ${t.id}`,
    `subject:      ${t.subject}`,
    `status:       ${t.status}${t.status === 'pending' && t.blocked ? ' (blocked)' : ''}`,
    `priority:     ${t.priority}`,
    `assignee:     ${who(t.assignee)}`,
    `claimed by:   ${who(t.claimed_by)}`,
    `created by:   ${who(t.created_by)}`,
  ];
  const optional: [string, string | null][] = [
    ['group', t.group_id ? `${t.group_id}${t.group_title ? ` (${t.group_title})` : ''}` : null],
    ['plan', t.plan_id],
    ['component', t.component],
    ['milestone', t.milestone],
    ['external ref', t.external_ref],
    ['a2a task', t.a2a_task_id],
    ['fail reason', t.fail_reason],
  ];
  for (const [k, v] of optional) if (v) lines.push(`${`${k}:`.padEnd(14)}${v}`);
  lines.push(`created:      ${t.created_at}`, `updated:      ${t.updated_at}`);
  if (t.completed_at) lines.push(`finished:     ${t.completed_at}`);
  if (t.description) lines.push('', t.description);
  return lines.join('\n');
}

function summary(t: BoardTask): string {
  return `${t.id.slice(0, 8)}  ${t.status}  "${t.subject}"`;
}

export interface CreateTaskOptions {
  description?: string;
  /** 1-5, as typed (commander's default is '3'). */
  priority: string;
  blockedBy?: string[];
  group?: string;
  groupTitle?: string;
  component?: string;
  milestone?: string;
  ref?: string;
  json?: boolean;
}

/** `synapse tasks create <subject>`. */
export async function createTask(subject: string, o: CreateTaskOptions, io: CommandIo): Promise<void> {
  const priority = parsePositiveInt(o.priority, '--priority', 5);
  if (o.groupTitle && !o.group) throw new SynapseError('usage', '--group-title needs --group');
  const task = await withBoard(io, (b) =>
    b.create({
      subject,
      description: o.description,
      priority,
      blocked_by: splitList(o.blockedBy),
      group_id: o.group,
      group_title: o.groupTitle,
      component: o.component,
      milestone: o.milestone,
      external_ref: o.ref,
      created_by: callerIdentity(io.env),
    }),
  );
  if (o.json) return printJson(io, task);
  println(io, `created ${summary(task)}${task.blocked ? ` (blocked by ${task.blocked_by.map((b) => b.slice(0, 8)).join(', ')})` : ''}`);
  println(io, task.id);
}

export interface ListTasksOptions {
  status?: string;
  assignee?: string;
  component?: string;
  milestone?: string;
  verbose?: boolean;
  groupBy?: TaskGroupField;
  /** 'table' (commander's default) or 'json'. */
  format: string;
  json?: boolean;
}

/** `synapse tasks list`. */
export async function listTasks(o: ListTasksOptions, io: CommandIo): Promise<void> {
  const { parseTaskStatus } = await import('../../store/board-input.js');
  const view = await import('../../store/board-view.js');
  const nameMap = await names(io.env);
  const status = splitList(o.status).map(parseTaskStatus);
  let assignee: string[] | undefined;
  if (o.assignee) {
    const a = o.assignee.trim();
    assignee = [a, ...[...nameMap].filter(([, name]) => name === a).map(([id]) => id)];
  }
  const list = await withBoard(io, (b) => b.list({ status, assignee, component: o.component, milestone: o.milestone }));
  if (o.json || o.format === 'json') {
    const shown = list.map((t) => view.withNames(t, nameMap));
    if (!o.groupBy) return printJson(io, shown);
    return printJson(io, {
      group_by: o.groupBy,
      groups: view.groupTasks(list, o.groupBy).map((g) => ({ key: g.key, title: g.title, tasks: g.tasks.map((t) => view.withNames(t, nameMap)) })),
    });
  }
  println(io, view.renderBoard(list, nameMap, { groupBy: o.groupBy, verbose: o.verbose }));
}

/** `synapse tasks show <id>`: the task, what blocks it and what waits for it. */
export async function showTask(id: string, o: { json?: boolean }, io: CommandIo): Promise<void> {
  const nameMap = await names(io.env);
  const { task, blockers, dependants } = await withBoard(io, async (b) => {
    const t = await b.get(id);
    return { task: t, blockers: await b.blockers(t.id), dependants: await b.dependants(t.id) };
  });
  if (o.json) return printJson(io, { task, blockers, dependants });
  println(io, describe(task, nameMap));
  if (task.blocked_by.length > 0) {
    println(io, `\nblocked by (${blockers.length} unfinished of ${task.blocked_by.length}):`);
    for (const d of task.blocked_by) {
      const open = blockers.find((b) => b.id === d);
      println(io, `  ${d.slice(0, 8)}  ${open ? open.status : 'completed'}${open ? `  "${open.subject}"` : ''}`);
    }
  }
  if (dependants.length > 0) {
    println(io, '\nwaiting for this task:');
    for (const d of dependants) println(io, `  ${summary(d)}`);
  }
}

/** `synapse tasks assign <id> <agent>`. */
export async function assignTask(id: string, agent: string, o: { json?: boolean }, io: CommandIo): Promise<void> {
  const who = await canonicalAgent(io.env, agent);
  const task = await withBoard(io, (b) => b.assign(id, who));
  if (o.json) return printJson(io, task);
  println(io, `assigned ${summary(task)} to ${agent}${who !== agent ? ` (${who})` : ''}`);
}

/** `synapse tasks claim <id>`: exactly one claimer wins. */
export async function claimTask(id: string, o: { as?: string; json?: boolean }, io: CommandIo): Promise<void> {
  const who = await canonicalAgent(io.env, o.as ?? callerIdentity(io.env));
  const task = await withBoard(io, (b) => b.claim(id, who));
  if (o.json) return printJson(io, task);
  println(io, `claimed ${summary(task)} as ${who}`);
}

/** `synapse tasks complete <id>`: prints the tasks it unblocked. */
export async function completeTask(id: string, o: { json?: boolean }, io: CommandIo): Promise<void> {
  const by = await canonicalAgent(io.env, callerIdentity(io.env));
  const result = await withBoard(io, (b) => b.complete(id, { by }));
  if (o.json) return printJson(io, result);
  println(io, `completed ${summary(result.task)}`);
  for (const u of result.unblocked) println(io, `  unblocked ${summary(u)}`);
}

/** `synapse tasks fail <id> --reason <text>`. */
export async function failTask(id: string, o: { reason: string; json?: boolean }, io: CommandIo): Promise<void> {
  const task = await withBoard(io, (b) => b.fail(id, o.reason));
  if (o.json) return printJson(io, task);
  println(io, `failed ${summary(task)}: ${task.fail_reason}`);
}

/** `synapse tasks reopen <id>`. */
export async function reopenTask(id: string, o: { json?: boolean }, io: CommandIo): Promise<void> {
  const task = await withBoard(io, (b) => b.reopen(id));
  if (o.json) return printJson(io, task);
  println(io, `reopened ${summary(task)}`);
}

export interface PurgeTasksOptions {
  /** Comma-separated statuses (commander's default is 'completed'). */
  status: string;
  olderThan?: string;
  dryRun?: boolean;
  json?: boolean;
}

/** `synapse tasks purge`: finished tasks go, unless an unfinished task still waits for them. */
export async function purgeTasks(o: PurgeTasksOptions, io: CommandIo): Promise<void> {
  const { parseTaskStatus } = await import('../../store/board-input.js');
  const { parseDuration } = await import('../../store/duration.js');
  const statuses = splitList(o.status).map(parseTaskStatus);
  const olderThanMs = o.olderThan === undefined ? undefined : parseDuration(o.olderThan, 'd', '--older-than');
  const result = await withBoard(io, (b) => b.purge({ statuses, olderThanMs, dryRun: o.dryRun }));
  if (o.json) return printJson(io, result);
  println(io, `${result.dry_run ? 'would purge' : 'purged'} ${result.purged.length} task(s)`);
  for (const t of result.purged) println(io, `  ${summary(t)}`);
  for (const s of result.skipped) println(io, `  kept ${summary(s.task)}: ${s.waiting.map((w) => w.slice(0, 8)).join(', ')} still wait(s) for it`);
}

/** Opens the canvas (plan cards) and the board, runs a plan operation, closes both. */
async function withPlan<T>(io: CommandIo, fn: (canvas: CanvasStore, board: BoardStore) => Promise<T>): Promise<T> {
  const { CanvasStore } = await import('../../store/canvas.js');
  if (!CanvasStore.exists(io.env)) throw new SynapseError('not_found', 'there are no canvas cards yet: post a plan with synapse canvas plan --file plan.json');
  const canvas = CanvasStore.open(io.env);
  try {
    return await withBoard(io, (board) => fn(canvas, board));
  } finally {
    canvas.close();
  }
}

/** `synapse tasks accept-plan <plan_id>`: the plan card's steps become board tasks. */
export async function acceptPlanCommand(planId: string, o: { json?: boolean }, io: CommandIo): Promise<void> {
  const { acceptPlan } = await import('../../store/canvas-plan.js');
  const by = await canonicalAgent(io.env, callerIdentity(io.env));
  const result = await withPlan(io, (canvas, board) => acceptPlan(canvas, board, planId, { by }));
  if (o.json) return printJson(io, result);
  println(io, `accepted plan ${planId}: ${result.changed.length} task(s) on the board (group ${planId})`);
  for (const c of result.changed) println(io, `  ${c.task_id.slice(0, 8)}  ${c.step}`);
}

/** `synapse tasks sync-plan <plan_id>`: the plan card's steps follow their tasks. */
export async function syncPlanCommand(planId: string, o: { json?: boolean }, io: CommandIo): Promise<void> {
  const { syncPlan } = await import('../../store/canvas-plan.js');
  const result = await withPlan(io, (canvas, board) => syncPlan(canvas, board, planId));
  if (o.json) return printJson(io, result);
  println(io, result.changed.length === 0 ? `plan ${planId} is up to date` : `plan ${planId}: ${result.changed.length} step(s) moved`);
  for (const c of result.changed) println(io, `  ${c.step} → ${c.status}`);
}

/** Declarations only, one block per subcommand: long, but there is no logic in it. */
// eslint-disable-next-line max-lines-per-function -- commander declarations, no logic
export function registerTaskCommands(program: Command): void {
  const tasks = program
    .command('tasks')
    .description("The project's shared task board (.synapse/task_board.db): create, claim, complete tasks with dependencies");
  examples(tasks, ['synapse tasks create "Write the parser" --priority 4', 'synapse tasks list --group-by milestone', 'synapse tasks claim 1a2b --as alice']);

  examples(
    tasks
      .command('create')
      .description('Add a pending task to the board')
      .argument('<subject>', 'one line saying what to do')
      .option('-d, --description <text>', 'details')
      .option('--priority <n>', '1 (lowest) to 5 (highest)', '3')
      .option('--blocked-by <ids...>', 'task ids (or unique prefixes) that must be completed first')
      .option('--group <id>', 'group id, to list related tasks together')
      .option('--group-title <title>', "the group's title")
      .option('--component <name>', 'component the task belongs to')
      .option('--milestone <name>', 'milestone the task belongs to')
      .option('--ref <external>', 'external reference (issue URL, ticket id)')
      .option('--json', 'print the created task as JSON'),
    [
      'synapse tasks create "Add login form" -d "email + password" --priority 4 --component web',
      'synapse tasks create "Ship it" --blocked-by 1a2b3c4d 5e6f --milestone v1',
    ],
  ).action((subject: string, o: CreateTaskOptions) => createTask(subject, o, processIo()));

  examples(
    tasks
      .command('list')
      .description('Show the board, highest priority first (assignees by name)')
      .option('--status <status>', 'only pending, in_progress, completed or failed (comma-separated for several)')
      .option('--assignee <agent>', 'only tasks assigned to or claimed by this agent (name or id)')
      .option('--component <name>', 'only this component')
      .option('--milestone <name>', 'only this milestone')
      .option('--verbose', 'more columns and full ids')
      .addOption(program.createOption('--group-by <field>', 'section the list by a field').choices(['group_id', 'component', 'milestone', 'status']))
      .addOption(program.createOption('--format <format>', 'output format').choices(['table', 'json']).default('table'))
      .option('--json', 'same as --format json'),
    [
      'synapse tasks list',
      'synapse tasks list --status pending,in_progress --assignee alice',
      'synapse tasks list --group-by group_id --verbose',
      'synapse tasks list --format json',
    ],
  ).action((o: ListTasksOptions) => listTasks(o, processIo()));

  examples(
    tasks
      .command('show')
      .description('Show one task, what blocks it and what waits for it')
      .argument('<id>', 'task id or unique prefix')
      .option('--json', 'print as JSON'),
    ['synapse tasks show 1a2b3c4d'],
  ).action((id: string, o: { json?: boolean }) => showTask(id, o, processIo()));

  examples(
    tasks
      .command('assign')
      .description('Assign a task to an agent (a registered name becomes its agent id)')
      .argument('<id>')
      .argument('<agent>')
      .option('--json', 'print as JSON'),
    ['synapse tasks assign 1a2b alice'],
  ).action((id: string, agent: string, o: { json?: boolean }) => assignTask(id, agent, o, processIo()));

  examples(
    tasks
      .command('claim')
      .description('Claim a pending task whose dependencies are all completed; exactly one claimer wins')
      .argument('<id>')
      .option('--as <agent>', 'who claims (default: $SYNAPSE_AGENT_ID, else your user name)')
      .option('--json', 'print as JSON'),
    ['synapse tasks claim 1a2b', 'synapse tasks claim 1a2b --as reviewer'],
  ).action((id: string, o: { as?: string; json?: boolean }) => claimTask(id, o, processIo()));

  examples(tasks.command('complete').description('Mark a task completed; its dependants become claimable').argument('<id>').option('--json', 'print as JSON'), [
    'synapse tasks complete 1a2b',
  ]).action((id: string, o: { json?: boolean }) => completeTask(id, o, processIo()));

  examples(
    tasks
      .command('fail')
      .description('Mark a task failed, with the reason')
      .argument('<id>')
      .requiredOption('--reason <text>', 'why it failed')
      .option('--json', 'print as JSON'),
    ['synapse tasks fail 1a2b --reason "upstream API is down"'],
  ).action((id: string, o: { reason: string; json?: boolean }) => failTask(id, o, processIo()));

  examples(tasks.command('reopen').description('Put a claimed, completed or failed task back to pending').argument('<id>').option('--json', 'print as JSON'), [
    'synapse tasks reopen 1a2b',
  ]).action((id: string, o: { json?: boolean }) => reopenTask(id, o, processIo()));

  examples(
    tasks
      .command('purge')
      .description('Delete finished tasks (kept while an unfinished task still waits for them)')
      .option('--status <status>', 'which statuses to purge (comma-separated)', 'completed')
      .option('--older-than <duration>', 'only tasks finished at least this long ago, e.g. 12h, 7d (a bare number is days)')
      .option('--dry-run', 'show what would be deleted, delete nothing')
      .option('--json', 'print as JSON'),
    ['synapse tasks purge --older-than 7d', 'synapse tasks purge --status completed,failed --dry-run'],
  ).action((o: PurgeTasksOptions) => purgeTasks(o, processIo()));

  examples(
    tasks
      .command('accept-plan')
      .description('Turn the steps of a Canvas plan card into board tasks (dependencies kept; plan_id and group_id = the plan)')
      .argument('<plan_id>', 'the plan card id (synapse canvas list --type plan)')
      .option('--json', 'print as JSON'),
    ['synapse canvas plan --file plan.json --id release', 'synapse tasks accept-plan release'],
  ).action((planId: string, o: { json?: boolean }) => acceptPlanCommand(planId, o, processIo()));

  examples(
    tasks
      .command('sync-plan')
      .description("Move a plan card's step states to its tasks' (pending → proposed, in_progress → active, completed, failed → cancelled)")
      .argument('<plan_id>', 'the plan card id')
      .option('--json', 'print as JSON'),
    ['synapse tasks sync-plan release'],
  ).action((planId: string, o: { json?: boolean }) => syncPlanCommand(planId, o, processIo()));
}
