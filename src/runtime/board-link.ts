import type { Task } from '../agent-api/task.js';
import type { Logger } from '../logger.js';
import { claimByA2aTask, completeByA2aTask, failByA2aTask } from '../store/board.js';

/**
 * A message sent with `synapse send --task` carries a linked board task: claimed by this agent
 * when the turn starts, completed or failed with it. A board failure is logged, never thrown:
 * the message's own task goes on.
 */
export function syncBoardTask(projectDir: string, agentId: string, task: Task, log: Logger): void {
  try {
    const state = task.status.state;
    if (state === 'working') claimByA2aTask(projectDir, task.id, agentId);
    else if (state === 'completed') completeByA2aTask(projectDir, task.id);
    else if (state === 'failed' || state === 'canceled') failByA2aTask(projectDir, task.id, task.status.message ?? state);
  } catch (err) {
    log.error(`task board update for ${task.id} failed: ${(err as Error).message}`);
  }
}
