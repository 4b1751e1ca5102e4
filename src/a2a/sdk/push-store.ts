import { randomUUID } from 'node:crypto';
import type { TaskPushNotificationConfig } from '@a2a-js/sdk';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import type { PushNotificationStore, ServerCallContext, StoredPushNotificationConfig } from '@a2a-js/sdk/server';

/** A task has a few receivers at most; more is a client bug, not a use case. */
const MAX_PER_TASK = 20;
/** Configs of the oldest tasks are forgotten beyond this many tasks. */
const MAX_TASKS = 1000;

/**
 * A2A push-notification configs, per task, in memory. Each entry remembers the wire version it
 * was registered over, so a v0.3 client's receiver keeps getting v0.3-shaped bodies. Only
 * http(s) URLs are taken: anything else would make the agent read local things.
 */
export class PushConfigStore implements PushNotificationStore {
  private readonly byTask = new Map<string, StoredPushNotificationConfig[]>();

  async save(taskId: string, context: ServerCallContext, config: TaskPushNotificationConfig): Promise<void> {
    let url: URL;
    try {
      url = new URL(config.url);
    } catch {
      throw new RequestMalformedError(`push notification url "${config.url}" is not a valid URL; give a full http:// or https:// URL`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new RequestMalformedError(`push notification url must use http or https, not ${url.protocol.replace(/:$/, '')}`);
    // The SDK reads the assigned id back from the object it passed in.
    if (!config.id) config.id = randomUUID();
    config.taskId = taskId;
    const list = (this.byTask.get(taskId) ?? []).filter((e) => e.config.id !== config.id);
    if (list.length >= MAX_PER_TASK) throw new RequestMalformedError(`task ${taskId} already has ${MAX_PER_TASK} push notification configs; delete one first`);
    list.push({ config: structuredClone(config), wireVersion: context.requestedVersion === '0.3' ? '0.3' : '1.0' });
    this.byTask.delete(taskId);
    this.byTask.set(taskId, list);
    while (this.byTask.size > MAX_TASKS) this.byTask.delete(this.byTask.keys().next().value!);
  }

  async load(taskId: string, _context?: ServerCallContext): Promise<TaskPushNotificationConfig[]> {
    return (this.byTask.get(taskId) ?? []).map((e) => structuredClone(e.config));
  }

  async loadWithMetadata(taskId: string, _context?: ServerCallContext): Promise<StoredPushNotificationConfig[]> {
    return (this.byTask.get(taskId) ?? []).map((e) => structuredClone(e));
  }

  async delete(taskId: string, _context: ServerCallContext, configId?: string): Promise<void> {
    if (configId === undefined) {
      this.byTask.delete(taskId);
      return;
    }
    const rest = (this.byTask.get(taskId) ?? []).filter((e) => e.config.id !== configId);
    if (rest.length > 0) this.byTask.set(taskId, rest);
    else this.byTask.delete(taskId);
  }

  has(taskId: string): boolean {
    return (this.byTask.get(taskId)?.length ?? 0) > 0;
  }

  /** Every config, for a listing across tasks (token and credentials left out). */
  all(): Array<{ task_id: string; id: string; url: string; wire_version: string; has_token: boolean; has_authentication: boolean }> {
    return [...this.byTask.entries()].flatMap(([taskId, list]) =>
      list.map((e) => ({
        task_id: taskId,
        id: e.config.id,
        url: e.config.url,
        wire_version: e.wireVersion,
        has_token: e.config.token !== '',
        has_authentication: Boolean(e.config.authentication?.scheme),
      })),
    );
  }
}
