import { requestJson } from '../../a2a/http-json.js';
import type { Task } from '../../agent-api/task.js';
import { SynapseError } from '../../errors.js';
import type { RegistryEntry } from '../../registry/entry.js';
import { liveAgents } from '../../registry/lookup.js';
import type { ReplyEntry } from '../../registry/reply-stack.js';
import { resolveSender } from '../../registry/sender.js';
import type { CommandIo } from '../io.js';
import { renderTable } from '../table.js';

function self(from: string | undefined, env: NodeJS.ProcessEnv): RegistryEntry {
  const me = resolveSender(liveAgents(env), { ...(from ? { from } : {}), env });
  if (!me.entry) {
    throw new SynapseError(
      'usage',
      me.id
        ? `agent ${me.id} is not running (no live agent has that id or name)`
        : 'synapse reply answers messages sent to an agent: run it from inside an agent session (SYNAPSE_AGENT_ID), or pass --from <agent>',
    );
  }
  return me.entry;
}

export interface ReplyFlags {
  to?: string;
  task?: string;
  list?: boolean;
  from?: string;
  json?: boolean;
}

/** `synapse reply [text]`: answers the newest message that expects a reply (or the one named); `--list` shows who waits. */
export async function replyCommand(text: string | undefined, flags: ReplyFlags, io: CommandIo): Promise<void> {
  const me = self(flags.from, io.env);
  if (flags.list) {
    const res = await requestJson<{ entries?: ReplyEntry[]; error?: { code: string; message: string } }>(`${me.endpoint}/reply-stack/list`);
    if (res.status !== 200) throw new SynapseError('delivery_failed', `cannot list who is waiting: ${res.status} ${res.body.error?.message ?? ''}`);
    const entries = res.body.entries ?? [];
    if (flags.json) io.out(`${JSON.stringify(entries, null, 2)}\n`);
    else if (entries.length === 0) io.out('nobody is waiting for an answer from you\n');
    else
      io.out(
        `${renderTable(
          ['SENDER', 'TASK', 'RECEIVED'],
          entries.reverse().map((e) => [e.sender_name ? `${e.sender_name} (${e.sender_id})` : (e.sender_id ?? 'human'), e.task_id.slice(0, 8), e.received_at]),
        )}\n`,
      );
    return;
  }
  if (text === undefined || text.trim() === '') throw new SynapseError('usage', 'the reply is empty: synapse reply "your answer"');
  const res = await requestJson<{
    task?: Task;
    entry?: ReplyEntry | null;
    forward?: { notified: boolean | null; error?: string };
    error?: { code: string; message: string };
  }>(`${me.endpoint}/reply`, {
    body: { text, ...(flags.task ? { task_id: flags.task } : {}), ...(flags.to ? { sender_id: flags.to } : {}) },
    timeoutMs: 15_000,
  });
  if (res.status === 404) throw new SynapseError('not_found', res.body.error?.message ?? 'nobody is waiting for an answer from you');
  if (res.status !== 200 || !res.body.task)
    throw new SynapseError('delivery_failed', `the reply was not recorded: ${res.status} ${res.body.error?.message ?? ''}`);
  const { task, entry, forward } = res.body;
  if (flags.json) {
    io.out(
      `${JSON.stringify({ task_id: task.id, status: task.status.state, to: entry?.sender_id ?? null, notified: forward?.notified ?? null, error: forward?.error ?? null })}\n`,
    );
    return;
  }
  const who = entry?.sender_name ?? entry?.sender_id ?? 'the sender';
  if (forward?.notified === false) {
    io.out(`reply stored on task ${task.id.slice(0, 8)}, but ${who} could not be notified: ${forward.error ?? 'unreachable'}\n`);
  } else {
    io.out(`replied to ${who} (task ${task.id.slice(0, 8)})\n`);
  }
}
