import type { ListTasksRequest, ListTasksResponse, Message as SdkMessage, Task as SdkTask } from '@a2a-js/sdk';
import type { ServerCallContext, TaskStore } from '@a2a-js/sdk/server';
import { isSynapseError } from '../../errors.js';
import type { AgentApi } from '../../agent-api/agent-api.js';
import type { Task } from '../../agent-api/task.js';
import { fromSdkState, toSdkTask } from './convert.js';

/** Enough for every task a list page can reach; ours keeps the newest first. */
const LIST_SCAN = 1000;
const DEFAULT_PAGE = 50;
/** Side data is per task and small; beyond this many tasks the oldest is forgotten. */
const KEEP_SIDE_DATA = 500;

/** A Map that forgets its oldest entries beyond `max`. */
class Bounded<V> {
  private readonly map = new Map<string, V>();
  constructor(private readonly max: number) {}
  get(k: string): V | undefined {
    return this.map.get(k);
  }
  set(k: string, v: V): void {
    this.map.delete(k);
    this.map.set(k, v);
    while (this.map.size > this.max) this.map.delete(this.map.keys().next().value!);
  }
}

/**
 * `known` with the messages of `incoming` it lacks, each placed after the message that precedes
 * it in `incoming` — so a save from a request with an older view never drops or reorders turns.
 */
export function mergeOrdered(known: readonly SdkMessage[], incoming: readonly SdkMessage[]): SdkMessage[] {
  const out = known.slice();
  const at = new Map(out.map((m, i) => [m.messageId, i]));
  let anchor = -1;
  for (const m of incoming) {
    const i = at.get(m.messageId);
    if (i !== undefined) {
      anchor = i;
      continue;
    }
    out.splice(anchor + 1, 0, structuredClone(m));
    anchor += 1;
    at.clear();
    out.forEach((x, j) => at.set(x.messageId, j));
  }
  return out;
}

/** Our task, or null when the runtime does not know the id. */
export function findTask(api: AgentApi, id: string): Task | null {
  try {
    return api.getTask(id);
  } catch (err) {
    if (isSynapseError(err) && (err.code === 'task_not_found' || err.code === 'not_found')) return null;
    throw err;
  }
}

/**
 * The SDK's TaskStore over Synapse's tasks, so `tasks/get` over A2A and `GET /tasks/:id` read the
 * same record. Synapse owns state, artifacts and metadata: `save` never changes them (the
 * executor only publishes what the runtime already persisted). What the SDK alone knows —
 * follow-up turns and earlier status messages in `history` — is kept beside the task, and a
 * task the runtime never saw (the SDK's synthetic failure when the executor throws) is kept
 * whole, so the SDK always reads back what it wrote.
 */
export class SynapseTaskStore implements TaskStore {
  private readonly history = new Bounded<SdkMessage[]>(KEEP_SIDE_DATA);
  private readonly orphans = new Bounded<SdkTask>(KEEP_SIDE_DATA);

  constructor(private readonly api: AgentApi) {}

  /** The SDK view of a Synapse task, with the history only the SDK knows. */
  view(task: Task): SdkTask {
    const view = toSdkTask(task);
    const known = this.history.get(task.id);
    if (!known) return view;
    // The SDK's own order is chronological; what only we can derive goes where it belongs:
    // the first message in front, the current status message last.
    const history = known.map((m) => structuredClone(m));
    const ids = new Set(history.map((m) => m.messageId));
    const [first, ...rest] = view.history;
    if (first && !ids.has(first.messageId)) history.unshift(first);
    for (const m of rest) if (!ids.has(m.messageId)) history.push(m);
    return { ...view, history };
  }

  async load(taskId: string, _context: ServerCallContext): Promise<SdkTask | undefined> {
    const task = findTask(this.api, taskId);
    if (task) return this.view(task);
    const orphan = this.orphans.get(taskId);
    return orphan ? structuredClone(orphan) : undefined;
  }

  async save(task: SdkTask, _context: ServerCallContext): Promise<void> {
    if (!findTask(this.api, task.id)) {
      this.orphans.set(task.id, structuredClone(task));
      return;
    }
    this.history.set(task.id, mergeOrdered(this.history.get(task.id) ?? [], task.history ?? []));
  }

  async list(params: ListTasksRequest, _context: ServerCallContext): Promise<ListTasksResponse> {
    const state = fromSdkState(params.status);
    const after = params.statusTimestampAfter ? Date.parse(params.statusTimestampAfter) : null;
    const matching = this.api
      .listTasks({ ...(state ? { state } : {}), limit: LIST_SCAN })
      // The agent's own start-up instruction is not something an A2A client sent.
      .filter((t) => t.metadata.kind !== 'bootstrap')
      .filter((t) => !params.contextId || t.context_id === params.contextId)
      .filter((t) => after === null || Date.parse(t.status.timestamp) >= after);
    const pageSize = params.pageSize ?? DEFAULT_PAGE;
    const offset = params.pageToken ? Number.parseInt(params.pageToken, 10) : 0;
    const start = Number.isInteger(offset) && offset > 0 ? offset : 0;
    const page = matching.slice(start, start + pageSize).map((t) => {
      const view = this.view(t);
      return params.includeArtifacts ? view : { ...view, artifacts: [] };
    });
    const next = start + pageSize < matching.length ? String(start + pageSize) : '';
    return { tasks: page, nextPageToken: next, pageSize, totalSize: matching.length };
  }
}
