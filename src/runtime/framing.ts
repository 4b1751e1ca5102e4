import { messageText, replyExpected, type Task } from '../agent-api/task.js';
import { writeMessageFile } from './message-files.js';
import { sanitizeLabel, sanitizePeerText } from './sanitize.js';

export interface FramingOptions {
  longMessageThreshold: number;
  messageDir: string;
}

/** The header every delivered message starts with: `A2A: [From: NAME (ID)] [REPLY EXPECTED]`. */
function frameHeader(task: Task): string {
  const sender = task.metadata.sender;
  const parts = ['A2A:'];
  if (sender?.sender_id) {
    const id = sanitizeLabel(sender.sender_id);
    const name = sanitizeLabel(sender.sender_name ?? sender.sender_id);
    parts.push(`[From: ${name} (${id})]`);
  }
  if (typeof task.metadata.in_reply_to === 'string') {
    parts.push(`[ANSWER to ${sanitizeLabel(task.metadata.in_reply_to).slice(0, 8)}]`);
    // A failed answer (`synapse reply --fail`, MISSING_REPLY) says so before its text.
    if (task.metadata.reply_status === 'failed') parts.push('[FAILED]');
  } else if (replyExpected(task.metadata)) parts.push('[REPLY EXPECTED]');
  return parts.join(' ');
}

/**
 * The text written into the CLI for a task: the sanitised message under its header, or, when
 * the message is long, a one-line pointer to a 0600 file that holds it.
 */
export function frameMessage(task: Task, opts: FramingOptions): { text: string; file: string | null } {
  const body = sanitizePeerText(messageText(task.message)).trim();
  const header = frameHeader(task);
  // The start-up instruction is ours, not a peer's: it always goes in as typed text.
  if (body.length <= opts.longMessageThreshold || task.metadata.kind === 'bootstrap') return { text: `${header} ${body}`, file: null };
  const file = writeMessageFile(opts.messageDir, task.id, `${header}\n\n${body}\n`);
  return { text: `${header} [LONG MESSAGE: ${body.length} characters] Read the full message from ${file}`, file };
}
