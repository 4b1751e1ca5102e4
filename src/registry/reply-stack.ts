import fs from 'node:fs';
import path from 'node:path';
import { SynapseError } from '../errors.js';
import { readJsonFile } from '../json-file.js';

/** Someone waiting for this agent's answer to one delivered message. */
export interface ReplyEntry {
  sender_id: string | null;
  sender_name: string | null;
  sender_endpoint: string | null;
  /** The task on this agent that delivered the message. */
  task_id: string;
  /** The task the sender was working on when it asked, if it was an agent. */
  sender_task_id: string | null;
  received_at: string;
}

function isEntry(v: unknown): v is ReplyEntry {
  if (typeof v !== 'object' || v === null) return false;
  const e = v as Record<string, unknown>;
  return typeof e.task_id === 'string' && typeof e.received_at === 'string';
}

/**
 * An agent's reply stack, `<dir>/<agent_id>.reply.json`: newest last. Only the owning agent
 * writes it (atomically); anyone may read it.
 */
export class ReplyStack {
  readonly file: string;

  constructor(dir: string, agentId: string) {
    this.file = path.join(dir, `${agentId}.reply.json`);
  }

  /** Oldest first. No file: nobody is waiting. A file that is not a JSON list: an error naming it. */
  list(): ReplyEntry[] {
    const raw = readJsonFile(this.file, 'the reply stack');
    if (raw === null) return [];
    if (!Array.isArray(raw))
      throw new SynapseError('corrupt_file', `the reply stack ${this.file} is not a JSON list; move it away or delete it`, { file: this.file });
    return raw.filter(isEntry);
  }

  private save(entries: ReplyEntry[]): void {
    fs.mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
    const tmp = `${this.file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, `${JSON.stringify(entries, null, 2)}\n`, { mode: 0o600 });
    fs.renameSync(tmp, this.file);
  }

  push(entry: ReplyEntry): void {
    const entries = this.list().filter((e) => e.task_id !== entry.task_id);
    entries.push(entry);
    this.save(entries);
  }

  /** The newest entry, or the newest from `senderId`, or the one for `taskId`. */
  peek(select: { senderId?: string; taskId?: string } = {}): ReplyEntry | null {
    const entries = this.list();
    for (let i = entries.length - 1; i >= 0; i--) {
      const e = entries[i]!;
      if (select.taskId && !e.task_id.startsWith(select.taskId)) continue;
      if (select.senderId && e.sender_id !== select.senderId && e.sender_name !== select.senderId) continue;
      return e;
    }
    return null;
  }

  pop(select: { senderId?: string; taskId?: string } = {}): ReplyEntry | null {
    const hit = this.peek(select);
    if (hit) this.remove(hit.task_id);
    return hit;
  }

  remove(taskId: string): void {
    const entries = this.list();
    const rest = entries.filter((e) => e.task_id !== taskId);
    if (rest.length !== entries.length) this.save(rest);
  }

  clear(): void {
    fs.rmSync(this.file, { force: true });
  }
}
