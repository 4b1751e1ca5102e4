import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { messageText, type Task } from '../../../src/agent-api/task.js';
import type { A2aService } from '../../../src/a2a/sdk/service.js';
import { SynapseError } from '../../../src/errors.js';
import { systemClock } from '../../../src/clock.js';
import { TaskEvents } from '../../../src/runtime/task-events.js';
import { TaskManager, textArtifact } from '../../../src/runtime/tasks.js';
import type { AgentApi } from '../../../src/agent-api/agent-api.js';
import { installErrorHandler } from '../../../src/server/errors.js';
import { StreamSlots } from '../../../src/server/stream-slots.js';
import { a2aRoutes } from '../../../src/server/routes/a2a-routes.js';
import { AgentTaskStore } from '../../../src/store/agent-tasks.js';

/**
 * The real task manager, store and event journal with a scripted "agent" in place of a PTY:
 * a message is worked on after `thinkMs` and completed with `ECHO: <text>`; `[[wait: S]]`
 * thinks S seconds; `[[permit]]` shows an approval dialog (input-required with its choices,
 * answered through `answerPermission`, as the real runtime does); `[[ask]]` goes to
 * input-required with no dialog, which no follow-up can answer. Fast enough for unit tests of
 * the A2A bridge; the integration tests run the same things against real agents.
 */
export interface FakeRuntime {
  api: AgentApi;
  tasks: TaskManager;
  events: TaskEvents;
  /** `starting`: not ready_for_messages yet (messages are still taken); `stopping`: shutting down, messages refused. */
  setPhase(phase: 'starting' | 'running' | 'stopping'): void;
  close(): void;
}

export function fakeRuntime(opts: { port: number; thinkMs?: number }): FakeRuntime {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'a2a-fake-'));
  const store = new AgentTaskStore(path.join(dir, 'agent.db'));
  const tasks = new TaskManager(store, systemClock);
  const events = new TaskEvents();
  tasks.on('updated', (t: Task, prev: string | null) => events.taskUpdated(t, prev));
  const timers = new Map<string, NodeJS.Timeout>();
  const thinkMs = opts.thinkMs ?? 20;
  let phase: 'starting' | 'running' | 'stopping' = 'running';
  const port = opts.port;

  const work = (id: string, text: string) => {
    const wait = /\[\[wait:\s*(\d+(?:\.\d+)?)\]\]/.exec(text);
    const ms = wait ? Number(wait[1]) * 1000 : thinkMs;
    timers.set(
      id,
      setTimeout(() => {
        timers.delete(id);
        tasks.transition(id, 'working', { receipt: 'delivered' });
        events.output(id, `thinking about ${text}\nstill thinking\n`);
        // The answer comes a moment later, as from a real CLI.
        timers.set(
          id,
          setTimeout(() => {
            timers.delete(id);
            if (text.includes('[[ask]]')) tasks.transition(id, 'input-required', { message: 'which file?' });
            else if (text.includes('[[permit]]')) {
              const choices = [
                { key: '1', label: 'Yes' },
                { key: '2', label: 'No, and tell the agent why' },
              ];
              tasks.transition(id, 'input-required', { message: 'Run ls?', metadata: { permission: { prompt: 'Run ls?', choices } } });
            } else tasks.transition(id, 'completed', { receipt: 'answered', artifact: textArtifact(`ECHO: ${text}`) });
          }, thinkMs),
        );
      }, ms),
    );
  };

  const api: FakeRuntime['api'] = {
    entry: () => ({
      agent_id: `synapse-echo-${port}`,
      agent_type: 'echo',
      name: 'fake',
      role: null,
      port,
      pid: process.pid,
      pid_starttime: null,
      working_dir: dir,
      endpoint: `http://127.0.0.1:${port}`,
      status: 'READY',
      status_updated_at: new Date().toISOString(),
      current_task_preview: null,
      task_received_at: null,
      registered_at: new Date().toISOString(),
      heartbeat_at: new Date().toISOString(),
      log_file: null,
      headless: true,
      synapse_version: '0.0.0-test',
    }),
    rename: (change) => ({
      ...api.entry(),
      ...(change.name !== undefined ? { name: change.name } : {}),
      ...(change.role !== undefined ? { role: change.role } : {}),
    }),
    teamOp: async () => {
      throw new SynapseError('invalid_input', 'the fake runtime spawns nothing');
    },
    status: () => ({
      status: 'READY',
      status_reason: null,
      current_task: null,
      queued: 0,
      ready_for_messages: phase === 'running',
      started_at: new Date().toISOString(),
    }),
    acceptingMessages: () => phase !== 'stopping',
    peers: () => [],
    admit: () => undefined,
    submit: (input) => {
      const t = tasks.create(input);
      work(t.id, messageText(t.message));
      return tasks.get(t.id);
    },
    getTask: (id) => tasks.get(id),
    listTasks: (o) => store.list(o),
    cancelTask: (id) => {
      const t = tasks.cancelable(id);
      clearTimeout(timers.get(id));
      timers.delete(id);
      return tasks.transition(t.id, 'canceled', { message: 'canceled', receipt: 'canceled' })!;
    },
    screen: () => ({ lines: [], cols: 80, rows: 24 }),
    shutdown: () => undefined,
    replyStack: () => [],
    peekReply: () => null,
    popReply: () => null,
    reply: async () => {
      throw new SynapseError('not_found', 'no replies in the fake runtime');
    },
    createTask: (input) => {
      const t = tasks.create({ ...input, metadata: { ...(input.metadata ?? {}), kind: 'outgoing' } });
      return tasks.transition(t.id, 'working') ?? tasks.get(t.id);
    },
    recordReply: () => {
      throw new SynapseError('not_found', 'no replies in the fake runtime');
    },
    updateHistory: () => {
      throw new SynapseError('task_not_found', 'no history in the fake runtime');
    },
    events,
    answerPermission: (taskId, choice) => {
      const t = tasks.get(taskId);
      const choices = (t.metadata.permission as { choices: Array<{ key: string; label: string }> } | null)?.choices ?? [];
      const picked = choices.find((c) => c.key === choice.trim() || c.label.toLowerCase().startsWith(choice.trim().toLowerCase()));
      if (t.status.state !== 'input-required' || !picked) throw new SynapseError('conflict', `task ${taskId} is not waiting for that answer`);
      setTimeout(() => {
        tasks.transition(taskId, 'working', { metadata: { permission: null } });
        setTimeout(() => tasks.transition(taskId, 'completed', { receipt: 'answered', artifact: textArtifact(`ECHO: ran after ${picked.label}`) }), thinkMs);
      }, thinkMs);
      return { task: t, choice: picked };
    },
    approvePlan: (taskId) => {
      throw new SynapseError('not_awaiting_plan', `task ${taskId} is not awaiting plan approval (the fake runtime shows no plans)`);
    },
    rejectPlan: (taskId) => {
      throw new SynapseError('not_awaiting_plan', `task ${taskId} is not awaiting plan approval (the fake runtime shows no plans)`);
    },
  };
  return {
    api,
    tasks,
    events,
    setPhase: (p) => (phase = p),
    close: () => {
      for (const t of timers.values()) clearTimeout(t);
      store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A Fastify app like the agent's (error handler, A2A plugin), listening on a free loopback port. */
export async function a2aApp(
  rt: FakeRuntime,
  extra: { pushBackoffMs?: readonly number[]; grpcPort?: number } = {},
): Promise<{ app: FastifyInstance; base: string; service: A2aService }> {
  const app = Fastify({ logger: false, forceCloseConnections: true });
  installErrorHandler(app);
  let service!: A2aService;
  await app.register(a2aRoutes, {
    api: rt.api,
    card: () => ({ self: rt.api.entry(), displayName: 'Echo', description: 'A fake echo agent.', peers: [] }),
    grpcPort: extra.grpcPort ?? null,
    streams: new StreamSlots(64),
    onService: (s) => (service = s),
    ...(extra.pushBackoffMs ? { pushBackoffMs: extra.pushBackoffMs } : {}),
  });
  // The card names the runtime's endpoint, so listen exactly there.
  await app.listen({ host: '127.0.0.1', port: rt.api.entry().port });
  // The SDK side loads lazily; a first request makes sure it is there.
  await fetch(`${rt.api.entry().endpoint}/.well-known/agent-card.json`);
  return { app, base: rt.api.entry().endpoint, service };
}
