import type { Command } from 'commander';
import { processIo } from '../io.js';
import type { ReplyFlags } from './reply.js';
import type { FinishFlags } from './finish.js';
import type { SendFlags } from './send.js';
import type { ShellFlags } from './shell.js';

const collect = (value: string, previous: string[] = []) => [...previous, value];

const SEND_HELP = `
Response modes:
  --wait     block until the answer; only the answer is printed on stdout
  --notify   return now; the answer is typed into your agent's terminal when it arrives
  --silent   fire and forget
  (default: settings a2a.flow — auto = --notify, roundtrip = --wait, oneway = --silent)

From an agent started with --delegate-mode (a manager), work goes out with a board task:
--task, --task <id>, or an open board task already assigned to the target; otherwise the send
is refused (exit 1, delegate_mode) with the command to run.

A target that is not running: a saved agent (synapse agents add), a name seen in this project
before, or any target with --queue gets the message later. It waits in the project's store and
goes into the inbox of the agent with that name (id, or type) when it next reaches READY:
"queued for NAME (not running)". --wait waits for that and the answer (up to --timeout);
one that no agent takes expires after SYNAPSE_QUEUE_TTL seconds (24 h), with a note to its sender.
--no-queue fails instead (exit 3).

Other hosts (a PostgreSQL store, guides/teams-across-machines.md): targets on every host that
registered in the store are found too (an id two hosts share is <agent_id>@<host>). The message
goes to the remote agent's advertised endpoint with the API key; it must work on the same git
remote and branch unless --force, and one bound to loopback only is refused (exit 5).

Exit codes: 0 ok · 1 usage or working-dir mismatch · 3 target not found or ambiguous
            4 target not ready in time (starting; or busy: the original Synapse takes one task at a time)
            5 delivery failed, or a queued message expired · 6 answer timed out

Examples:
  synapse send codex "review src/app.ts" --wait
  synapse send reviewer --message-file plan.md --notify -p 4
  git diff | synapse send claude --stdin --wait --timeout 600
  synapse send echo-8190 "hi" --silent --json
  synapse send impl "add the /orders endpoint" --task        a linked board task for impl
  synapse send reviewer "look at PR 12 when you start" --queue   waits until reviewer runs
  synapse send synapse-claude-8100@ci-runner-2 "run the e2e suite" --wait   an agent on another host`;

/**
 * Declarations only, one block per command: long, but there is no logic in it. Each action loads
 * send.ts, reply.ts or respond.ts (they import the HTTP client and the registry) and calls it.
 */
// eslint-disable-next-line max-lines-per-function -- commander declarations, no logic
export function registerMessagingCommands(program: Command): void {
  program
    .command('send')
    .description('Send a message into another agent\'s terminal (as "A2A: [From: YOU] …")')
    .argument('<target>', 'name, agent id, type-port (claude-8100) or type')
    .argument('[message]', 'the message (or use --message-file / --stdin)')
    .option('--message-file <file>', 'read the message from a file')
    .option('--stdin', 'read the message from standard input')
    .option('--attach <file>', 'attach a file (repeatable; limit SYNAPSE_SEND_MESSAGE_THRESHOLD, default 100 KiB)', collect)
    .option('-p, --priority <1-5>', 'priority: the inbox is ordered by it; 5 interrupts the target first', '3')
    .option('--wait', 'block until the answer and print it')
    .option('--notify', 'return now; get the answer in your terminal when it arrives')
    .option('--silent', 'fire and forget')
    .option('--timeout <seconds>', 'with --wait: stop waiting after this long (exit 6); also bounds waiting for a target that is starting or busy (exit 4)')
    .option('-f, --from <agent>', 'send as this agent (default: $SYNAPSE_AGENT_ID, then the agent whose terminal runs this command)')
    .option('--force', 'send even though the target works in another directory (another worktree too)')
    .option('-T, --task [id]', 'also create a linked task on the shared board, assigned to the target (or link the existing board task <id>)')
    .option('--queue', 'if the target is not running, leave the message for it: delivered when it next starts (default for saved agents and names seen here)')
    .option('--no-queue', 'if the target is not running, fail (exit 3) instead of queueing')
    .option('--json', 'print {task_id, target, status, receipt}')
    .addHelpText('after', SEND_HELP)
    .action(async (target: string, message: string | undefined, flags: SendFlags) => {
      const { sendCommand } = await import('./send.js');
      await sendCommand(target, message, flags, processIo());
    });

  program
    .command('shell')
    .description('An interactive prompt: @codex <message> sends and shows the answer as it arrives')
    .option('--to <agent>', 'the default target for lines without @ (change it with /to)')
    .option('--timeout <seconds>', 'stop waiting for an answer after this long (the task goes on)', '600')
    .option('-f, --from <agent>', 'send as this agent (default: as synapse send)')
    .addHelpText(
      'after',
      `
In the shell:
  @codex review src/app.ts            send to codex; its answer is printed when it arrives
  @codex,gemini compare these plans   several agents at once; each answer as it arrives
  @all stand-up: what are you on?     every other agent in this project
  fix the flaky test                  to the default target (--to or /to), else refused
  /to reviewer  /list  /help  exit    Tab completes agent names after @; history in ~/.synapse/shell_history

Lines can be piped in too; the shell exits after the last answer:
  printf '@echo hello\n' | synapse shell`,
    )
    .action(async (flags: ShellFlags) => {
      const { shellCommand } = await import('./shell.js');
      await shellCommand(flags, processIo());
    });

  program
    .command('reply')
    .description('Answer the newest message that expects a reply (or the one named)')
    .argument('[text]', 'the answer')
    .option('--to <sender>', 'answer the newest message from this sender (id or name)')
    .option('--task <id>', 'answer the message of this task (id or prefix)')
    .option('--fail <reason>', 'answer that the task failed, with this reason (error code REPLY_FAILED), instead of a text answer')
    .option('--list', 'list who is waiting for your answer')
    .option('--from <agent>', 'reply as this agent (default: $SYNAPSE_AGENT_ID or the agent whose terminal runs this)')
    .option('--json', 'print JSON')
    .addHelpText(
      'after',
      '\nExamples:\n  synapse reply "looks good, two nits: …"\n  synapse reply --list\n  synapse reply "done" --to codex\n  synapse reply --fail "cannot reach the staging database"\n\nExit 1 with "nobody is waiting for an answer from you" when the stack is empty. A sender waiting\nwith --wait gets a failed task whose error is {code: REPLY_FAILED, message: <reason>}.',
    )
    .action(async (text: string | undefined, flags: ReplyFlags) => {
      const { replyCommand } = await import('./reply.js');
      await replyCommand(text, flags, processIo());
    });

  program
    .command('finish')
    .description("Hand off in one step: release this agent's locks, complete its claimed board tasks, and answer the sender with a note")
    .option('--summary <text>', 'one line on what was done')
    .option('--done <item>', 'something finished (repeatable)', collect)
    .option('--remaining <item>', 'something left to do (repeatable)', collect)
    .option('--blockers <item>', 'something in the way (repeatable)', collect)
    .option('--reopen', 'put the claimed board tasks back to pending instead of completing them')
    .option('--from <agent>', 'finish as this agent (default: $SYNAPSE_AGENT_ID or the agent whose terminal runs this)')
    .option('--json', 'print JSON')
    .addHelpText(
      'after',
      '\nExamples:\n  synapse finish --summary "login refactor" --done "split auth.ts" --remaining "tests for logout"\n  synapse finish --reopen --blockers "staging database is down"\n\nThe note goes to the newest sender waiting for an answer (as synapse reply); with nobody waiting,\nlocks and tasks are still handed off and the note is not posted.',
    )
    .action(async (flags: FinishFlags) => {
      const { finishCommand } = await import('./finish.js');
      await finishCommand(flags, processIo());
    });

  program
    .command('interrupt')
    .description('Send an urgent message: the same as send -p 4 --silent')
    .argument('<target>', 'name, agent id, type-port or type')
    .argument('[message]', 'the message')
    .option('--from <agent>', 'send as this agent')
    .option('--force', 'send even though the target works in another directory (another worktree too)')
    .option('--json', 'print JSON')
    .addHelpText('after', '\nExample:\n  synapse interrupt codex "stop: the tests are red on main"')
    .action(async (target: string, message: string | undefined, flags: SendFlags) => {
      const { sendCommand } = await import('./send.js');
      await sendCommand(target, message, flags, processIo(), { priority: 4, mode: 'silent', coordination: true, queue: false });
    });

  program
    .command('respond')
    .description("Answer the approval dialog (permission prompt) a target's CLI is showing")
    .argument('<target>', 'name, agent id, type-port or type')
    .argument('<choice>', 'the choice key (1, 2, 3 …) or approve / deny')
    .option('--task <id>', 'the input-required task (default: the one waiting)')
    .option('--json', 'print JSON')
    .addHelpText(
      'after',
      '\nThe task shows the dialog in metadata.permission {prompt, choices}. Deny always selects the\ndeny option, never a bare Enter.\n\nExamples:\n  synapse respond claude approve\n  synapse respond codex 3',
    )
    .action(async (target: string, choice: string, flags: { task?: string; json?: boolean }) => {
      const { respondCommand } = await import('./respond.js');
      await respondCommand(target, choice, flags, processIo());
    });

  program
    .command('approve')
    .description("Approve the plan an agent's CLI shows for a task (Claude Code's plan mode)")
    .argument('<task>', 'the task id (or its first characters) that is input-required with metadata.plan')
    .option('--agent <target>', 'the agent that holds the task (default: ask every running agent)')
    .option('--json', 'print JSON')
    .addHelpText(
      'after',
      '\nThe CLI\'s approve keys answer its plan screen (Claude Code: 2, "Yes, manually approve edits").\nExit 1 with not_awaiting_plan when the task shows no plan.\n\nExample:\n  synapse approve 3f2a9c1e',
    )
    .action(async (task: string, flags: { agent?: string; json?: boolean }) => {
      const { planCommand } = await import('./plan.js');
      await planCommand('approve', task, flags, processIo());
    });

  program
    .command('reject')
    .description("Reject the plan an agent's CLI shows for a task; the reason becomes its next message")
    .argument('<task>', 'the task id (or its first characters) that is input-required with metadata.plan')
    .option('--reason <text>', 'why: delivered to the agent as its next message, ahead of its queue')
    .option('--agent <target>', 'the agent that holds the task (default: ask every running agent)')
    .option('--json', 'print JSON')
    .addHelpText(
      'after',
      '\nExit 1 with not_awaiting_plan when the task shows no plan.\n\nExample:\n  synapse reject 3f2a9c1e --reason "keep the old file name; only update the imports"',
    )
    .action(async (task: string, flags: { reason?: string; agent?: string; json?: boolean }) => {
      const { planCommand } = await import('./plan.js');
      await planCommand('reject', task, flags, processIo());
    });

  program
    .command('broadcast')
    .description('Send a message to every other agent in this working directory (or all with --all)')
    .argument('[message]', 'the message')
    .option('--type <type>', 'only agents of this type')
    .option('--all', 'agents in every directory')
    .option('-p, --priority <1-5>', 'priority', '3')
    .option('--notify', 'ask each agent to answer (into your terminal)')
    .option('--from <agent>', 'send as this agent')
    .option('--message-file <file>', 'read the message from a file')
    .option('--stdin', 'read the message from standard input')
    .option('--json', 'print one receipt per agent as JSON')
    .addHelpText('after', '\nExamples:\n  synapse broadcast "main is frozen until 3pm"\n  synapse broadcast "rebase on main" --type claude --all')
    .action(async (message: string | undefined, flags: SendFlags & { type?: string; all?: boolean }) => {
      const { broadcastCommand } = await import('./send.js');
      await broadcastCommand(message, flags, processIo());
    });
}
