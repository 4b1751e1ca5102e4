import fs from 'node:fs';
import path from 'node:path';

/**
 * The echo agent's conversations, so that it can be resumed the way the real CLIs are: one JSON
 * file per conversation id, `<dir>/<id>.json` = `{id, messages}`, rewritten after every message.
 */

/** `--session-id ID` starts (or goes on with) that one; `--resume [ID]` / `--continue` go on with an earlier one. */
export type ConversationRequest = { kind: 'new'; id: string } | { kind: 'resume'; id: string | null };

export interface Conversation {
  id: string;
  /** The messages so far, oldest first. */
  messages: string[];
  record(message: string): void;
}

/** A conversation id is a file name: letters, digits, `.`, `_` and `-`, not starting with a dot. */
const ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

function readMessages(file: string): string[] | null {
  try {
    const data = JSON.parse(fs.readFileSync(file, 'utf8')) as { messages?: unknown };
    return Array.isArray(data.messages) ? data.messages.filter((m): m is string => typeof m === 'string') : [];
  } catch {
    return null;
  }
}

/** The id of the conversation written last in `dir`, or null when there is none. */
function latest(dir: string): string | null {
  let names: string[];
  try {
    names = fs.readdirSync(dir).filter((n) => n.endsWith('.json'));
  } catch {
    return null;
  }
  const stamped = names.map((n) => ({ id: n.slice(0, -5), mtime: fs.statSync(path.join(dir, n), { throwIfNoEntry: false })?.mtimeMs ?? 0 }));
  stamped.sort((a, b) => b.mtime - a.mtime);
  return stamped[0]?.id ?? null;
}

/**
 * Opens the asked conversation, or says why not (as the real CLIs do, before their first prompt).
 * Null: `--resume`/`--continue` without an id and nothing to go on with (the agent starts afresh,
 * recording nothing).
 */
export function openConversation(dir: string, asked: ConversationRequest): Conversation | { error: string } | null {
  const id = asked.id ?? latest(dir);
  if (id === null) return null;
  if (!ID.test(id)) return { error: `"${id}" is not a conversation id (letters, digits, ".", "_" and "-").` };
  const file = path.join(dir, `${id}.json`);
  const earlier = readMessages(file);
  if (asked.kind === 'resume' && earlier === null) return { error: `No conversation found with session ID: ${id}` };
  const messages = earlier ?? [];
  const save = () => {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify({ id, messages }), { mode: 0o600 });
    fs.renameSync(tmp, file);
  };
  save();
  return {
    id,
    messages,
    record(message) {
      messages.push(message);
      save();
    },
  };
}
