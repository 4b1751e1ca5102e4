import type { Command } from 'commander';
import { processIo } from '../io.js';
import type * as WorkflowCli from './workflow-cli.js';
import type { RunWorkflowFlags, ScopeFlags } from './workflow-cli.js';

// The command module, and the YAML parser and TypeBox schema under it, load only when a workflow
// command runs: every other `synapse` command declares these without paying for them.
const cli = (): Promise<typeof WorkflowCli> => import('./workflow-cli.js');

const HELP = `
A workflow is a YAML file of steps sent in order, as \`synapse send\` sends them:
  .synapse/workflows/<name>.yaml (project; wins on a name) or ~/.synapse/workflows/<name>.yaml (user)

  name: review-and-fix
  trigger: when a change is ready for review     # optional: generates a skill
  steps:
    - target: reviewer                            # name, id, type-port or type
      message: Review the changes in src/
      response_mode: wait                         # wait | notify | silent
      priority: 4                                 # 1-5
    - target: coder
      message: "Fix these findings: {{steps.1.answer}}"

Examples:
  synapse workflow create review-and-fix
  synapse workflow list
  synapse workflow show review-and-fix
  synapse workflow run review-and-fix --dry-run
  synapse workflow run review-and-fix --continue-on-error --auto-spawn
  synapse workflow sync
  synapse workflow delete review-and-fix --force

guides/workflows.md describes every field.`;

const RUN_HELP = `
Each step prints a progress line, then the run a summary. A step that waits (response_mode: wait)
passes its answer on to later steps as {{steps.N.answer}} (N counts from 1).
Exit codes: 0 every step ok · otherwise the first failed step's, as \`synapse send\`'s
(3 target not found, 4 not ready, 5 delivery failed or the task failed, 6 answer timed out).

Examples:
  synapse workflow run review-and-fix
  synapse workflow run review-and-fix --dry-run
  synapse workflow run nightly --continue-on-error --auto-spawn --json`;

function scopeOptions(cmd: Command): Command {
  return cmd.option('--project', 'only the project scope (.synapse/workflows/)').option('--user', 'only the user scope (~/.synapse/workflows/)');
}

/** `synapse workflow …`: declarations only; workflow-cli.ts does the work. */
export function registerWorkflowCommands(program: Command): void {
  const workflow = program
    .command('workflow')
    .description('Saved multi-step message sequences: create, list, show, run, sync, delete')
    .addHelpText('after', HELP);

  scopeOptions(workflow.command('create'))
    .description('Write a workflow template to edit (project scope unless --user)')
    .argument('<name>', 'lowercase letters, digits and hyphens')
    .option('--force', 'overwrite an existing file')
    .option('--json', 'print JSON')
    .addHelpText('after', '\nExamples:\n  synapse workflow create review-and-fix\n  synapse workflow create standup --user')
    .action(async (name: string, flags: ScopeFlags & { force?: boolean }) => (await cli()).createWorkflowCommand(name, flags, processIo()));

  scopeOptions(workflow.command('list'))
    .description('List workflows of both scopes (a project one hides a user one of the same name)')
    .option('--json', 'print JSON')
    .addHelpText('after', '\nExample:\n  synapse workflow list --json')
    .action(async (flags: ScopeFlags) => (await cli()).listWorkflowsCommand(flags, processIo()));

  scopeOptions(workflow.command('show'))
    .description("Show a workflow's steps")
    .argument('<name>')
    .option('--json', 'print JSON')
    .addHelpText('after', '\nExample:\n  synapse workflow show review-and-fix')
    .action(async (name: string, flags: ScopeFlags) => (await cli()).showWorkflowCommand(name, flags, processIo()));

  scopeOptions(workflow.command('run'))
    .description('Send the steps in order, with a progress line per step and a summary')
    .argument('<name>')
    .option('--dry-run', 'print what would be sent; send nothing, start nothing')
    .option('--continue-on-error', 'go on after a failed step (the exit code still says it failed)')
    .option('--auto-spawn', 'start a target that is not running (`synapse start <target>`: the target names a profile)')
    .option('--timeout <seconds>', 'per step: how long to wait for an answer, and for a target that is starting or busy')
    .option('--from <agent>', 'send as this agent (default: $SYNAPSE_AGENT_ID, then the agent whose terminal runs this)')
    .option('--force', 'send even to agents that work in another directory')
    .option('--json', 'print the summary as JSON (progress lines go to stderr)')
    .addHelpText('after', RUN_HELP)
    .action(async (name: string, flags: RunWorkflowFlags & ScopeFlags) => (await cli()).runWorkflowCommand(name, flags, processIo()));

  scopeOptions(workflow.command('sync'))
    .description('Regenerate the skills of workflows with a trigger; remove generated skills without a workflow')
    .option('--json', 'print JSON')
    .addHelpText(
      'after',
      '\nGenerated skills carry <!-- synapse-workflow-autogen --> in their SKILL.md; a skill folder\nwithout it is never written or removed.\n\nExample:\n  synapse workflow sync',
    )
    .action(async (flags: ScopeFlags) => (await cli()).syncWorkflowsCommand(flags, processIo()));

  scopeOptions(workflow.command('delete'))
    .description('Delete a workflow file and its generated skill (asks first; --force without a terminal)')
    .argument('<name>')
    .option('--force', 'do not ask')
    .option('--json', 'print JSON')
    .addHelpText('after', '\nExample:\n  synapse workflow delete review-and-fix --force')
    .action(async (name: string, flags: ScopeFlags & { force?: boolean }) => (await cli()).deleteWorkflowCommand(name, flags, processIo()));
}
