import { requestJson } from '../../a2a/http-json.js';
import { apiKeyHeaders } from '../../config/auth-keys.js';
import { peerTls } from '../../a2a/peer-tls.js';
import { parsePeerTask } from '../../a2a/wire-client.js';
import { SynapseError } from '../../errors.js';
import type { RegistryEntry } from '../../registry/entry.js';
import { liveAgents } from '../../registry/lookup.js';
import { resolveSender } from '../../registry/sender.js';
import type { CommandIo } from '../io.js';
import { renderTable } from '../table.js';

/** The agent running this command (`SYNAPSE_AGENT_ID`, its terminal, or `--from`); shared with `finish`. */
export function self(from: string | undefined, env: NodeJS.ProcessEnv): RegistryEntry {
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
  fail?: string;
  list?: boolean;
  from?: string;
  json?: boolean;
}

/** One waiting sender from `GET /reply-stack/list` (the original's `targets`; `sender_name` is ours). */
interface ReplyTarget {
  sender_id?: string | null;
  sender_name?: string | null;
  receiver_task_id?: string | null;
  received_at?: string | null;
  message_preview?: string | null;
}

async function listTargets(me: RegistryEntry, json: boolean | undefined, io: CommandIo): Promise<void> {
  const res = await requestJson<{ targets?: ReplyTarget[]; error?: { code: string; message: string } }>(`${me.endpoint}/reply-stack/list`, {
    headers: apiKeyHeaders(io.env),
    tls: peerTls(io.env),
  });
  if (res.status !== 200) throw new SynapseError('delivery_failed', `cannot list who is waiting: ${res.status} ${res.body.error?.message ?? ''}`);
  const targets = Array.isArray(res.body.targets) ? res.body.targets : [];
  if (json) io.out(`${JSON.stringify(targets, null, 2)}\n`);
  else if (targets.length === 0) io.out('nobody is waiting for an answer from you\n');
  else
    io.out(
      `${renderTable(
        ['SENDER', 'TASK', 'RECEIVED', 'MESSAGE'],
        [...targets]
          .reverse()
          .map((t) => [
            t.sender_name ? `${t.sender_name} (${t.sender_id})` : (t.sender_id ?? 'human'),
            (t.receiver_task_id ?? '-').slice(0, 8),
            t.received_at ?? '-',
            t.message_preview ?? '',
          ]),
      )}\n`,
    );
}

/**
 * `synapse reply [text]`: answers the newest message that expects a reply (or the one named);
 * `--fail <reason>` answers that it failed; `--list` shows who waits.
 */
export async function replyCommand(text: string | undefined, flags: ReplyFlags, io: CommandIo): Promise<void> {
  const me = self(flags.from, io.env);
  if (flags.list) return listTargets(me, flags.json, io);
  const hasText = text !== undefined && text.trim() !== '';
  if (flags.fail !== undefined && hasText) throw new SynapseError('usage', 'use either a reply message or --fail, not both');
  if (flags.fail !== undefined && flags.fail.trim() === '') throw new SynapseError('usage', '--fail needs a reason: synapse reply --fail "why it failed"');
  if (flags.fail === undefined && !hasText) throw new SynapseError('usage', 'the reply is empty: synapse reply "your answer"');
  const outcome = flags.fail !== undefined ? { text: flags.fail.trim(), status: 'failed' } : { text: text! };
  const res = await requestJson<{
    task?: unknown;
    target?: ReplyTarget | null;
    forward?: { notified: boolean | null; error?: string };
    error?: { code: string; message: string };
  }>(`${me.endpoint}/reply`, {
    body: { ...outcome, ...(flags.task ? { task_id: flags.task } : {}), ...(flags.to ? { sender_id: flags.to } : {}) },
    timeoutMs: 15_000,
    headers: apiKeyHeaders(io.env),
    tls: peerTls(io.env),
  });
  if (res.status === 404) throw new SynapseError('not_found', res.body.error?.message ?? 'nobody is waiting for an answer from you');
  const task = res.status === 200 ? parsePeerTask(res.body.task) : null;
  if (!task) throw new SynapseError('delivery_failed', `the reply was not recorded: ${res.status} ${res.body.error?.message ?? ''}`);
  const { target, forward } = res.body;
  if (flags.json) {
    io.out(
      `${JSON.stringify({ task_id: task.id, status: task.status, error: task.error, to: target?.sender_id ?? null, notified: forward?.notified ?? null, forward_error: forward?.error ?? null })}\n`,
    );
    return;
  }
  const who = target?.sender_name ?? target?.sender_id ?? 'the sender';
  const what = task.status === 'failed' ? 'reported the failure' : 'replied';
  if (forward?.notified === false) {
    io.out(`reply stored on task ${task.id.slice(0, 8)}, but ${who} could not be notified: ${forward.error ?? 'unreachable'}\n`);
  } else {
    io.out(`${what} to ${who} (task ${task.id.slice(0, 8)})\n`);
  }
}
