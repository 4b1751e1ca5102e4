import type { Message, Task, TaskMetadata } from '../agent-api/task.js';
import type { Limits } from '../config/limits.js';
import { SynapseError } from '../errors.js';

/** Seconds a sender whose inbox share is full is told to wait (`Retry-After`). */
const QUEUE_RETRY_AFTER_S = 5;

/** Messages without a sender (a person with curl or `synapse send` outside an agent) share one allowance. */
const NO_SENDER = '(no sender)';

function senderKey(metadata: TaskMetadata | undefined): string {
  const id = metadata?.sender?.sender_id;
  return typeof id === 'string' && id !== '' ? id : NO_SENDER;
}

/** Refuses a message over the size limits (413, `message_too_large`), before anything is stored. */
export function checkMessageSize(limits: Limits, message: Message): void {
  if (message.parts.length > limits.messageParts)
    throw new SynapseError(
      'message_too_large',
      `the message has ${message.parts.length} parts; this agent takes at most ${limits.messageParts} (SYNAPSE_MAX_MESSAGE_PARTS): send fewer parts, or several messages`,
      { parts: message.parts.length, limit: limits.messageParts },
    );
  let chars = 0;
  for (const p of message.parts) if (p.type === 'text') chars += p.text.length;
  if (chars > limits.messageChars)
    throw new SynapseError(
      'message_too_large',
      `the message text is ${chars} characters; this agent takes at most ${limits.messageChars} (SYNAPSE_MAX_MESSAGE_CHARS): put the rest in a file and send its path`,
      { characters: chars, limit: limits.messageChars },
    );
}

/**
 * Backpressure: a sender that already has `queuedPerSender` messages waiting in this inbox gets
 * `queue_full` (429, `Retry-After`), with its queue depth in the error's details, so one runaway
 * sender cannot bury everyone else's messages. Answers are not queued and never count.
 */
export function checkSenderQueue(limits: Limits, queued: readonly Task[], metadata: TaskMetadata | undefined): void {
  const sender = senderKey(metadata);
  let mine = 0;
  for (const t of queued) if (senderKey(t.metadata) === sender) mine++;
  if (mine < limits.queuedPerSender) return;
  throw new SynapseError(
    'queue_full',
    `${mine} messages from ${sender} are already waiting in this agent's inbox (limit ${limits.queuedPerSender}, SYNAPSE_MAX_QUEUED_PER_SENDER): not queued; send it again in ${QUEUE_RETRY_AFTER_S} s or once some are delivered`,
    { sender_id: sender === NO_SENDER ? null : sender, queued: mine, limit: limits.queuedPerSender, retry_after: QUEUE_RETRY_AFTER_S },
  );
}
