import type { Task, TaskState } from '../../src/agent-api/task.js';
import { HistoryStore, type HistoryAgent } from '../../src/store/history.js';

/** Three finished tasks of two agents, for the `synapse history` and `trace` tests. */

const alice: HistoryAgent = { agent_id: 'synapse-claude-8100', name: 'alice', agent_type: 'claude', working_dir: '/nonexistent/alice' };
const bob: HistoryAgent = { agent_id: 'synapse-codex-8120', name: 'bob', agent_type: 'codex', working_dir: '/nonexistent/bob' };

function task(id: string, state: TaskState, input: string, output: string, atMs: number, metadata: Task['metadata'] = {}): Task {
  const iso = (ms: number) => new Date(ms).toISOString();
  return {
    id,
    context_id: 'ctx',
    status: { state, timestamp: iso(atMs + 6000) },
    message: { role: 'user', parts: [{ type: 'text', text: input }] },
    artifacts: output ? [{ artifact_id: `art-${id}`, name: 'response', parts: [{ type: 'text', text: output }] }] : [],
    metadata: { kind: 'message', sender: { sender_id: 'synapse-gemini-8110', sender_name: 'carol', sender_type: 'gemini' }, ...metadata },
    priority: 3,
    receipt: {
      state: state === 'completed' ? 'answered' : 'failed',
      queued_at: iso(atMs),
      delivered_at: iso(atMs + 1000),
      ...(state === 'completed' ? { answered_at: iso(atMs + 6000) } : { failed_at: iso(atMs + 6000) }),
    },
    created_at: iso(atMs),
    updated_at: iso(atMs + 6000),
  };
}

const DAY = 86_400_000;
export const NOW = Date.now();
export const ID_A = 'aaaa1111-0000-4000-8000-000000000001';
export const ID_B = 'aaaa2222-0000-4000-8000-000000000002';
export const ID_C = 'cccc3333-0000-4000-8000-000000000003';

/** A (alice, 40 days old, answered with `synapse reply`), B (bob, failed), C (bob, in reply to A). */
export function fill(env: NodeJS.ProcessEnv): void {
  const h = HistoryStore.open(env);
  try {
    h.record(
      task(ID_A, 'completed', 'fix the login form validation', 'validation fixed, "quotes", and commas', NOW - 40 * DAY, { reply_source: 'reply' }),
      alice,
    );
    h.record(task(ID_B, 'failed', 'deploy the login service', '', NOW - 2 * DAY), bob);
    h.record(task(ID_C, 'completed', 'write the migration', 'migration written', NOW - DAY, { reply_source: 'output', in_reply_to: ID_A }), bob);
  } finally {
    h.close();
  }
}
