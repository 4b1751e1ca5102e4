import type { Env } from '../config/paths.js';
import { apiKeyHeaders } from '../config/auth-keys.js';
import type { RegistryEntry } from '../registry/entry.js';
import type { QueuedMessage } from '../store/message-queue.js';
import { requestJson } from './http-json.js';
import { peerTls } from './peer-tls.js';

/** What the sender of a message that never reached its agent is told. */
function queueNoteText(m: QueuedMessage): string {
  const what = m.state === 'refused' ? `was refused by ${m.claimed_by ?? 'the agent that took it'}` : 'expired undelivered';
  return `Synapse: your message to ${m.target} (task ${m.id.slice(0, 8)}, queued ${m.created_at}) ${what}: ${m.note ?? 'no reason given'}. It said: "${m.preview}"`;
}

/** The running agent that sent `m`, by its id or its endpoint; null for a person, or an agent gone since. */
function senderAgent(m: QueuedMessage, live: readonly RegistryEntry[]): RegistryEntry | null {
  if (!m.sender_id && !m.sender_endpoint) return null;
  return live.find((e) => (m.sender_id !== null && e.agent_id === m.sender_id) || (m.sender_endpoint !== null && e.endpoint === m.sender_endpoint)) ?? null;
}

/**
 * Tells the senders of messages that expired (or were refused) in the queue, as a silent message
 * typed into the sending agent's terminal (`metadata.queue_note`). A person, or an agent that is
 * not running now, is not told here: the note stays on the message (`synapse status <target>`, and
 * a `send --wait` still waiting says it). Returns the ids whose sender was told; never throws.
 */
export async function noteSenders(
  messages: readonly QueuedMessage[],
  opts: { env: Env; live: readonly RegistryEntry[]; log?: (line: string) => void; timeoutMs?: number },
): Promise<string[]> {
  const told = await Promise.all(
    messages.map(async (m) => {
      opts.log?.(`queued message ${m.id} for ${m.target} ${m.state}: ${m.note ?? ''}`);
      const sender = senderAgent(m, opts.live);
      if (!sender) return null;
      try {
        const res = await requestJson(`${sender.endpoint}/tasks/send`, {
          body: {
            message: { role: 'user', parts: [{ type: 'text', text: queueNoteText(m) }] },
            metadata: { response_mode: 'silent', queue_note: { message_id: m.id, target: m.target, state: m.state } },
          },
          // One note per message, whoever sends it and however often.
          headers: { ...apiKeyHeaders(opts.env), 'idempotency-key': `queue-note-${m.id}` },
          tls: peerTls(opts.env),
          timeoutMs: opts.timeoutMs ?? 3000,
        });
        return res.status >= 200 && res.status < 300 ? m.id : null;
      } catch (err) {
        opts.log?.(`could not tell ${sender.agent_id} that its queued message ${m.id} ${m.state}: ${(err as Error).message}`);
        return null;
      }
    }),
  );
  return told.filter((id): id is string => id !== null);
}
