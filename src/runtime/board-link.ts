import type { Task } from '../agent-api/task.js';
import type { Env } from '../config/paths.js';
import type { Logger } from '../logger.js';
import { claimByA2aTask, completeByA2aTask, failByA2aTask } from '../store/board-store.js';

/**
 * A message sent with `synapse send --task` carries a linked board task: claimed by this agent
 * when the turn starts, completed or failed with it. The board is asynchronous (it may live in
 * PostgreSQL), so updates run one after another in the order the task moved. A board failure is
 * logged, never thrown: the message's own task goes on.
 */
export class BoardSync {
  private chain: Promise<void> = Promise.resolve();

  constructor(private readonly opts: { projectDir: string; agentId: string; env: Env; log: Logger }) {}

  update(task: Task): void {
    const state = task.status.state;
    const { projectDir, agentId, env, log } = this.opts;
    const options = { env };
    this.chain = this.chain.then(async () => {
      try {
        if (state === 'working') await claimByA2aTask(projectDir, task.id, agentId, options);
        else if (state === 'completed') await completeByA2aTask(projectDir, task.id, options);
        else if (state === 'failed' || state === 'canceled') await failByA2aTask(projectDir, task.id, task.status.message ?? state, options);
      } catch (err) {
        log.error(`task board update for ${task.id} failed: ${(err as Error).message}`);
      }
    });
  }

  /** Resolves once every update asked for so far has run (on stop). */
  settled(): Promise<void> {
    return this.chain;
  }
}
