import { requestJson } from '../../a2a/http-json.js';
import { apiKeyHeaders } from '../../config/auth-keys.js';
import { peerTls } from '../../a2a/peer-tls.js';
import { SynapseError } from '../../errors.js';
import type { RegistryEntry } from '../../registry/entry.js';
import type { CommandIo } from '../io.js';
import { printJson, println } from '../io.js';
import { self } from './reply.js';

export interface FinishFlags {
  summary?: string;
  done?: string[];
  remaining?: string[];
  blockers?: string[];
  /** Put the agent's claimed board tasks back to pending instead of completing them. */
  reopen?: boolean;
  from?: string;
  json?: boolean;
}

interface FinishNote {
  summary: string | null;
  done: string[];
  remaining: string[];
  blockers: string[];
}

interface FinishResult {
  agent_id: string;
  released_locks: string[];
  tasks: { id: string; subject: string; status: string }[];
  note: FinishNote;
  /** Who the note went to; null when nobody was waiting for an answer. */
  posted_to: string | null;
  post_error: string | null;
}

const clean = (items: string[] | undefined): string[] => (items ?? []).map((s) => s.trim()).filter((s) => s.length > 0);

/** The hand-off note as the sender reads it: plain text, one section per non-empty list. */
function renderNote(note: FinishNote, result: Pick<FinishResult, 'released_locks' | 'tasks'>): string {
  const lines = [`[finish] ${note.summary ?? 'work handed off'}`];
  const section = (title: string, items: string[]) => {
    if (items.length === 0) return;
    lines.push(`${title}:`);
    for (const item of items) lines.push(`- ${item}`);
  };
  section('Done', note.done);
  section('Remaining', note.remaining);
  section('Blockers', note.blockers);
  if (result.tasks.length > 0) lines.push(`Board: ${result.tasks.map((t) => `${t.id.slice(0, 8)} ${t.status}`).join(', ')}`);
  if (result.released_locks.length > 0) lines.push(`Released ${result.released_locks.length} lock(s)`);
  return lines.join('\n');
}

async function releaseLocks(dir: string, me: RegistryEntry, env: NodeJS.ProcessEnv): Promise<string[]> {
  const { withFileSafety } = await import('../../store/file-safety-store.js');
  return withFileSafety(dir, { env }, async (store) => {
    const owners = new Set([me.agent_id, ...(me.name ? [me.name] : [])]);
    const released: string[] = [];
    for (const who of owners) for (const l of await store.locks({ agent: who })) if ((await store.unlock(l.path, who)).released) released.push(l.path);
    return released;
  });
}

/**
 * `synapse finish`: hands off in one step. Releases the agent's file-safety locks, completes
 * (or `--reopen`s) its in-progress board tasks, and answers the sender of its current task with
 * a structured note (summary, done, remaining, blockers) through the same path as `synapse reply`.
 */
export async function finishCommand(flags: FinishFlags, io: CommandIo): Promise<void> {
  const me = self(flags.from, io.env);
  const dir = me.working_dir;
  const note: FinishNote = {
    summary: flags.summary?.trim() || null,
    done: clean(flags.done),
    remaining: clean(flags.remaining),
    blockers: clean(flags.blockers),
  };

  const { fileSafetyEnabled } = await import('../../store/settings.js');
  let released: string[] = [];
  if (fileSafetyEnabled(io.env)) {
    released = await releaseLocks(dir, me, io.env);
  }

  const { withBoard } = await import('../../store/board-store.js');
  const mine = [me.agent_id, ...(me.name ? [me.name] : [])];
  const tasks = await withBoard(
    dir,
    async (board) => {
      const claimed = (await board.list({ status: ['in_progress'], assignee: mine })).filter((t) => t.claimed_by !== null && mine.includes(t.claimed_by));
      const done: { id: string; subject: string; status: string }[] = [];
      for (const t of claimed) {
        const after = flags.reopen ? await board.reopen(t.id) : (await board.complete(t.id, { by: me.agent_id })).task;
        done.push({ id: after.id, subject: after.subject, status: after.status });
      }
      return done;
    },
    { env: io.env },
  );

  const result: FinishResult = { agent_id: me.agent_id, released_locks: released, tasks, note, posted_to: null, post_error: null };
  const res = await requestJson<{ target?: { sender_id?: string | null; sender_name?: string | null } | null; error?: { message: string } }>(
    `${me.endpoint}/reply`,
    { body: { text: renderNote(note, result) }, timeoutMs: 15_000, headers: apiKeyHeaders(io.env), tls: peerTls(io.env) },
  );
  if (res.status === 200) result.posted_to = res.body.target?.sender_name ?? res.body.target?.sender_id ?? 'human';
  else if (res.status !== 404) result.post_error = `${res.status} ${res.body.error?.message ?? ''}`.trim();

  if (flags.json) return printJson(io, result);
  println(io, `released ${released.length} lock(s)`);
  for (const t of tasks) println(io, `${t.status === 'pending' ? 'reopened' : 'completed'} task ${t.id.slice(0, 8)} ${t.subject}`);
  if (result.posted_to) println(io, `posted the hand-off note to ${result.posted_to}`);
  else if (result.post_error) throw new SynapseError('delivery_failed', `the hand-off note was not posted: ${result.post_error}`);
  else println(io, 'nobody is waiting for an answer from you: the note was not posted');
}
