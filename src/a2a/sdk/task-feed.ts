import { AgentEvent, DefaultExecutionEventBus, type ExecutionEventBus, type ExecutionEventBusManager } from '@a2a-js/sdk/server';
import type { AgentApi } from '../../agent-api/agent-api.js';
import type { StreamEvent } from '../../agent-api/task-events.js';
import { TERMINAL_STATES, type Task, type TaskState } from '../../agent-api/task.js';
import { endsWait, synapseMetadata, toSdkArtifact, toSdkStatus } from './convert.js';
import { findTask } from './task-store.js';

interface Feed {
  bus: ExecutionEventBus;
  /** Set once the feed follows the runtime's task events. */
  unsubscribe: (() => void) | null;
  /** The last state published on the bus (null: none yet). */
  lastState: TaskState | null;
  /** Artifacts already published, by id. */
  artifacts: Set<string>;
  /** Output lines of the running turn not yet published. */
  output: string[];
  /** A flush is scheduled. */
  pending: boolean;
}

/**
 * The SDK's event buses, fed from the runtime's own task events (`api.events`), so every A2A
 * stream shows what the runtime persisted — no matter whether the task came in over A2A or
 * `/tasks/send`. A followed bus is owned here: it is settled when the task reaches a terminal
 * state, and stays open through input-required so a follow-up message and resubscribers can
 * attach (the SDK's own policy would decide from what the executor saw before returning, but
 * the executor returns as soon as the message is queued).
 */
export class TaskFeedBuses implements ExecutionEventBusManager {
  private readonly feeds = new Map<string, Feed>();
  private readonly owned = new WeakSet<ExecutionEventBus>();

  constructor(private readonly api: AgentApi) {}

  createOrGetByTaskId(taskId: string): ExecutionEventBus {
    return (this.feeds.get(taskId) ?? this.create(taskId)).bus;
  }

  /**
   * A live task always has a bus: the SDK uses this for resubscribe and cancel, and a task that
   * arrived through `/tasks/send` must stream and cancel like one that came over A2A.
   */
  getByTaskId(taskId: string): ExecutionEventBus | undefined {
    const existing = this.feeds.get(taskId);
    if (existing) return existing.bus;
    const task = findTask(this.api, taskId);
    if (!task || TERMINAL_STATES.has(task.status.state)) return undefined;
    this.create(taskId);
    return this.follow(task, { announce: false });
  }

  cleanupByTaskId(taskId: string): void {
    const feed = this.feeds.get(taskId);
    if (!feed) return;
    feed.unsubscribe?.();
    this.feeds.delete(taskId);
  }

  settleByTaskId(_taskId: string, bus: ExecutionEventBus): boolean {
    return this.owned.has(bus);
  }

  /**
   * Starts publishing the runtime's changes of `snapshot`'s task (the executor has just
   * published the snapshot itself). With `announce`, a snapshot that is already terminal or
   * waiting for input is published as a status update too, because only a status update ends
   * an SDK request's wait. A bus that is already followed is left as it is.
   */
  follow(snapshot: Task, opts: { announce: boolean }): ExecutionEventBus {
    const feed = this.feeds.get(snapshot.id) ?? this.create(snapshot.id);
    if (feed.unsubscribe) return feed.bus;
    feed.lastState = opts.announce && endsWait(snapshot.status.state) ? null : snapshot.status.state;
    feed.artifacts = new Set(snapshot.artifacts.map((a) => a.artifact_id));
    this.owned.add(feed.bus);
    // subscribe() first replays the journal synchronously; the snapshot already covers it.
    let replaying = true;
    feed.unsubscribe = this.api.events.subscribe(snapshot.id, 0, (e) => {
      if (!replaying) this.onEvent(feed, snapshot.id, e);
    });
    replaying = false;
    this.catchUp(feed, snapshot.id);
    return feed.bus;
  }

  /** Settles every bus (the app is closing): waiting SDK requests end instead of hanging. */
  close(): void {
    for (const [taskId, feed] of [...this.feeds]) {
      this.cleanupByTaskId(taskId);
      feed.bus.finished();
    }
  }

  private create(taskId: string): Feed {
    const feed: Feed = { bus: new DefaultExecutionEventBus(), unsubscribe: null, lastState: null, artifacts: new Set(), output: [], pending: false };
    this.feeds.set(taskId, feed);
    return feed;
  }

  /**
   * Runtime events are published on the next turn of the event loop, coalesced: the SDK's
   * result manager reads the task back from the store for every event, and a `working` that
   * reaches it after the runtime already completed the task would be stale (and logged).
   */
  private onEvent(feed: Feed, taskId: string, e: StreamEvent): void {
    if (e.event === 'output') {
      const lines = (e.data as { lines?: unknown }).lines;
      if (Array.isArray(lines)) feed.output.push(...lines.filter((l): l is string => typeof l === 'string'));
    }
    if (feed.pending) return;
    feed.pending = true;
    setImmediate(() => {
      feed.pending = false;
      this.flush(feed, taskId);
    });
  }

  private flush(feed: Feed, taskId: string): void {
    if (this.feeds.get(taskId) !== feed) return;
    const lines = feed.output.splice(0);
    const task = findTask(this.api, taskId);
    // Live output of a running turn: a working update that carries the new lines.
    if (task && lines.length > 0 && task.status.state === 'working' && feed.lastState === 'working') {
      feed.bus.publish(
        AgentEvent.statusUpdate({ taskId, contextId: task.context_id, status: toSdkStatus(task), metadata: synapseMetadata({ output_lines: lines }) }),
      );
    }
    this.catchUp(feed, taskId);
  }

  /** Publishes what changed since the last publish: new artifacts first, then the state. */
  private catchUp(feed: Feed, taskId: string): void {
    if (this.feeds.get(taskId) !== feed) return;
    const task = findTask(this.api, taskId);
    if (!task) return;
    for (const a of task.artifacts) {
      if (feed.artifacts.has(a.artifact_id)) continue;
      feed.artifacts.add(a.artifact_id);
      feed.bus.publish(
        AgentEvent.artifactUpdate({ taskId, contextId: task.context_id, artifact: toSdkArtifact(a), append: false, lastChunk: true, metadata: undefined }),
      );
    }
    if (task.status.state !== feed.lastState) {
      feed.lastState = task.status.state;
      feed.bus.publish(AgentEvent.statusUpdate({ taskId, contextId: task.context_id, status: toSdkStatus(task), metadata: undefined }));
    }
    if (TERMINAL_STATES.has(task.status.state)) {
      this.cleanupByTaskId(taskId);
      feed.bus.finished();
    }
  }
}
