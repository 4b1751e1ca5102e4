import type { StreamResponse, Task as SdkTask, TaskPushNotificationConfig } from '@a2a-js/sdk';
import { V1PushNotificationSerializer, type PushNotificationSender } from '@a2a-js/sdk/server';
import { V03PushNotificationSerializer } from '@a2a-js/sdk/compat/v0_3/server';
import type { AgentApi } from '../../agent-api/agent-api.js';
import { TERMINAL_STATES, type Task, type TaskState } from '../../agent-api/task.js';
import { toSdkArtifact, toSdkStatus } from './convert.js';
import type { PushConfigStore } from './push-store.js';
import { findTask } from './task-store.js';
import { trustExtraCaCertsFor } from '../../extra-ca-certs.js';

const DEFAULT_TIMEOUT_MS = 5000;
/** Waits before retry 1 and 2 of a push that failed with a network error or a 5xx. */
const DEFAULT_BACKOFF_MS: readonly number[] = [500, 1500];

/**
 * Handed to the SDK's DefaultRequestHandler in place of its own sender: pushes are driven by
 * the runtime's task events (PushDispatcher), so a task notifies whichever route created or
 * answered it. The SDK's sender only sees events while an A2A request is attached to the task,
 * and would send each of those a second time.
 */
export const runtimeDrivenPushes: PushNotificationSender = { send: async () => undefined };

export interface PushDispatcherOptions {
  api: AgentApi;
  store: PushConfigStore;
  /** Our task as the SDK sees it (with the SDK-only history). */
  view: (task: Task) => SdkTask;
  log: (msg: string) => void;
  timeoutMs?: number;
  backoffMs?: readonly number[];
}

/**
 * Posts A2A push notifications: for every state change of a task that has push configs, the
 * new artifacts (artifact updates) and then the status update, in order per task, with the
 * body shape of the wire version each config was registered over.
 */
export class PushDispatcher {
  private readonly v1 = new V1PushNotificationSerializer();
  private readonly v03 = new V03PushNotificationSerializer();
  private readonly chains = new Map<string, Promise<void>>();
  private readonly published = new Map<string, { state: TaskState | null; artifacts: Set<string> }>();
  private readonly inFlight = new Set<AbortController>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private unsubscribe: (() => void) | null = null;
  private stopped = false;

  constructor(private readonly opts: PushDispatcherOptions) {}

  start(): void {
    // Only live events: the global feed replays ids above the one given.
    this.unsubscribe = this.opts.api.events.subscribeAll(Number.MAX_SAFE_INTEGER, (e) => {
      const id = (e.data as { task_id?: unknown }).task_id;
      if (e.event === 'task' && typeof id === 'string') this.taskChanged(id);
    });
  }

  stop(): void {
    this.stopped = true;
    this.unsubscribe?.();
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    for (const c of this.inFlight) c.abort();
  }

  /** Resolves once every push queued so far for `taskId` was attempted (tests, shutdown). */
  async settled(taskId: string): Promise<void> {
    await this.chains.get(taskId);
  }

  private taskChanged(taskId: string): void {
    if (this.stopped || !this.opts.store.has(taskId)) return;
    const task = findTask(this.opts.api, taskId);
    if (!task) return;
    const seen = this.published.get(taskId) ?? { state: null, artifacts: new Set<string>() };
    this.published.set(taskId, seen);
    const events: StreamResponse[] = [];
    for (const a of task.artifacts) {
      if (seen.artifacts.has(a.artifact_id)) continue;
      seen.artifacts.add(a.artifact_id);
      events.push({
        payload: {
          $case: 'artifactUpdate',
          value: { taskId, contextId: task.context_id, artifact: toSdkArtifact(a), append: false, lastChunk: true, metadata: undefined },
        },
      });
    }
    if (task.status.state !== seen.state) {
      seen.state = task.status.state;
      events.push({ payload: { $case: 'statusUpdate', value: { taskId, contextId: task.context_id, status: toSdkStatus(task), metadata: undefined } } });
    }
    if (events.length === 0) return;
    const snapshot = this.opts.view(task);
    const previous = this.chains.get(taskId) ?? Promise.resolve();
    const next = previous.then(() => this.deliver(taskId, events, snapshot));
    this.chains.set(taskId, next);
    void next.finally(() => {
      if (this.chains.get(taskId) !== next) return;
      this.chains.delete(taskId);
      if (TERMINAL_STATES.has(task.status.state)) this.published.delete(taskId);
    });
  }

  private async deliver(taskId: string, events: StreamResponse[], task: SdkTask): Promise<void> {
    const configs = await this.opts.store.loadWithMetadata(taskId);
    for (const event of events) {
      await Promise.all(configs.map((c) => this.post(c.config, c.wireVersion, event, task)));
    }
  }

  private async post(config: TaskPushNotificationConfig, wireVersion: string, event: StreamResponse, task: SdkTask): Promise<void> {
    const { body, contentType } = (wireVersion === '0.3' ? this.v03 : this.v1).serialize(event, task);
    const headers: Record<string, string> = { 'content-type': contentType };
    if (config.authentication?.scheme && config.authentication.credentials)
      headers.authorization = `${config.authentication.scheme} ${config.authentication.credentials}`;
    else if (config.token) headers['x-a2a-notification-token'] = config.token;
    const backoff = this.opts.backoffMs ?? DEFAULT_BACKOFF_MS;
    for (let attempt = 0; ; attempt++) {
      if (this.stopped) return;
      const error = await this.attempt(config.url, headers, body);
      if (error === null) return;
      if (!error.retryable || attempt >= backoff.length) {
        this.opts.log(
          `a2a push for task ${config.taskId} to ${redact(config.url)} failed: ${error.message}${attempt > 0 ? ` (after ${attempt + 1} attempts)` : ''}`,
        );
        return;
      }
      await this.sleep(backoff[attempt]!);
    }
  }

  /** One POST; null on 2xx, else why (network errors and 5xx may pass on a retry). */
  private async attempt(url: string, headers: Record<string, string>, body: string): Promise<{ message: string; retryable: boolean } | null> {
    const controller = new AbortController();
    this.inFlight.add(controller);
    const timer = setTimeout(() => controller.abort(), this.opts.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    try {
      trustExtraCaCertsFor(url);
      const res = await fetch(url, { method: 'POST', headers, body, signal: controller.signal, redirect: 'manual' });
      await res.body?.cancel();
      if (res.ok) return null;
      return { message: `HTTP ${res.status}`, retryable: res.status >= 500 };
    } catch (err) {
      return { message: (err as Error).message, retryable: true };
    } finally {
      clearTimeout(timer);
      this.inFlight.delete(controller);
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.timers.delete(t);
        resolve();
      }, ms);
      t.unref();
      this.timers.add(t);
    });
  }
}

/** No credentials or query strings (tokens live there) in the log. */
function redact(raw: string): string {
  try {
    const u = new URL(raw);
    return `${u.protocol}//${u.host}${u.pathname}${u.search ? '?…' : ''}`;
  } catch {
    return '(invalid url)';
  }
}
