import type { Task, TaskState } from '../a2a/task.js';
import type { AgentStatus } from '../profiles/types.js';
import type { RegistryEntry } from '../registry/entry.js';
import type { NewTask } from '../runtime/tasks.js';

/** What the HTTP layer may ask of a running agent; the runtime implements it. */
export interface AgentApi {
  entry(): RegistryEntry;
  status(): { status: AgentStatus; current_task: string | null; queued: number; ready_for_messages: boolean; started_at: string };
  /** False until the first READY and the start-up instruction are done. */
  readyForMessages(): boolean;
  peers(): RegistryEntry[];
  submit(input: NewTask): Task;
  getTask(id: string): Task;
  listTasks(options: { state?: TaskState; limit?: number }): Task[];
  cancelTask(id: string): Task;
  screen(): { lines: string[]; cols: number; rows: number };
  shutdown(reason: string): void;
}
