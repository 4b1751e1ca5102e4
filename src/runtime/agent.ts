import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Task } from '../agent-api/task.js';
import { messageText, TERMINAL_STATES } from '../agent-api/task.js';
import { renderStartupInstruction } from '../config/instructions.js';
import { agentStateDir, logsDir, messageFileDir, registryDir, replyDir, type Env } from '../config/paths.js';
import { viewOf } from '../profiles/screen-rules.js';
import type { AgentStatus, Profile } from '../profiles/types.js';
import type { RegistryEntry } from '../registry/entry.js';
import { HEARTBEAT_MS } from '../registry/liveness.js';
import { FileRegistry } from '../registry/registry.js';
import { ReplyStack } from '../registry/reply-stack.js';
import type { AgentApi } from '../agent-api/agent-api.js';
import { buildApp, loopbackHostCheck } from '../server/app.js';
import { AgentTaskStore } from '../store/agent-tasks.js';
import { claimByA2aTask, completeByA2aTask, failByA2aTask } from '../store/board.js';
import { hasActiveLocks } from '../store/file-safety.js';
import { HistoryRecorder } from '../store/history.js';
import { WebhookStore } from '../store/webhooks.js';
import { WebhookDispatcher } from './webhook-dispatcher.js';
import { VERSION } from '../version.js';
import { AgentStatusModel } from './agent-status.js';
import { systemClock, type Clock } from '../clock.js';
import { DeliveryLoop } from './delivery.js';
import { DEFAULT_LONG_MESSAGE_THRESHOLD, sweepMessageFiles } from './framing.js';
import { Injector } from './injector.js';
import { attachUserTerminal } from './passthrough.js';
import { claimPort } from './port-claim.js';
import { Screen } from './screen.js';
import { ScreenStatusTracker } from './screen-status.js';
import { traceScreens } from './screen-trace.js';
import { DEFAULT_REPLY_GRACE_MS, ReplyCoordinator } from './replies.js';
import { TaskEvents } from './task-events.js';
import { TaskManager } from './tasks.js';
import { spawnTerminal, type AgentTerminal } from './terminal.js';

export interface AgentOptions {
  profile: Profile;
  name?: string;
  role?: string;
  port?: number;
  host?: string;
  /** No user terminal attached (background agents, tests). */
  headless: boolean;
  cliArgs: string[];
  cwd: string;
  env: Env;
  clock?: Clock;
}

export interface RunningAgent {
  agentId: string;
  port: number;
  endpoint: string;
  /** Resolves with the exit code once the agent has shut down completely. */
  exited: Promise<number>;
  shutdown(reason: string): Promise<number>;
}

const HEADLESS_SIZE = { cols: 120, rows: 40 };
/** A delivery waits until the human has not typed for this long. */
const USER_IDLE_MS = 2000;

function preview(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 80 ? `${flat.slice(0, 79)}…` : flat;
}

/** The profile's range, or `SYNAPSE_PORT_RANGE_<TYPE>=first-last` (e.g. when 8100-8109 is taken). */
export function portRange(profile: Profile, env: Env): { first: number; last: number } {
  const raw = env[`SYNAPSE_PORT_RANGE_${profile.id.toUpperCase()}`];
  const m = raw ? /^(\d+)-(\d+)$/.exec(raw.trim()) : null;
  if (!m) return profile.ports;
  const first = Number(m[1]);
  const last = Number(m[2]);
  return first >= 1 && last <= 65535 && first <= last ? { first, last } : profile.ports;
}

/** The composition root: one agent = one PTY-wrapped CLI + its HTTP server + its registry entry. */
export async function startAgent(opts: AgentOptions): Promise<RunningAgent> {
  const { profile, env } = opts;
  const clock = opts.clock ?? systemClock;
  const host = opts.host ?? '127.0.0.1';
  const registry = new FileRegistry(registryDir(env));

  const claim = await claimPort({ range: portRange(profile, env), host, registry, type: profile.id, ...(opts.port !== undefined ? { port: opts.port } : {}) });
  const port = claim.port;
  const agentId = `synapse-${profile.id}-${port}`;
  const endpoint = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const startedAt = new Date(clock.now()).toISOString();

  // Event log: stdout when headless (a background agent's stdout is its log file), else a file.
  let logStream: fs.WriteStream | null = null;
  const logFile = opts.headless ? (env.SYNAPSE_LOG_FILE ?? null) : path.join(logsDir(env), `${agentId}.log`);
  if (!opts.headless) {
    fs.mkdirSync(logsDir(env), { recursive: true });
    logStream = fs.createWriteStream(logFile!, { flags: 'a' });
  }
  const log = (msg: string) => {
    const line = `${new Date(clock.now()).toISOString()} ${agentId} ${msg}\n`;
    if (logStream) logStream.write(line);
    else process.stdout.write(line);
  };
  if (!opts.headless) {
    // In the foreground stdout is the user's terminal: library chatter goes to the log instead.
    const toLog = (...args: unknown[]) => log(args.map((a) => (typeof a === 'string' ? a : String(a))).join(' '));
    console.log = console.info = console.warn = console.error = console.debug = toLog;
  }

  const stateDir = agentStateDir(env);
  fs.mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  const store = new AgentTaskStore(path.join(stateDir, `${agentId}.db`));
  const tasks = new TaskManager(store, clock);
  const webhookStore = new WebhookStore(store.db, clock);
  const webhooks = new WebhookDispatcher({ store: webhookStore, env, log, clock, agentId });
  const history = new HistoryRecorder(env, { log });

  const size = opts.headless || !process.stdout.columns ? HEADLESS_SIZE : { cols: process.stdout.columns, rows: process.stdout.rows };
  const screen = new Screen(size.cols, size.rows);

  let terminal: AgentTerminal;
  try {
    terminal = spawnTerminal({
      command: profile.command,
      args: [...profile.args, ...opts.cliArgs],
      cwd: opts.cwd,
      env: {
        ...(Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined)) as Record<string, string>),
        ...profile.env,
        TERM: 'xterm-256color',
        SYNAPSE_AGENT_ID: agentId,
        SYNAPSE_AGENT_TYPE: profile.id,
        SYNAPSE_PORT: String(port),
      },
      cols: size.cols,
      rows: size.rows,
    });
  } catch (err) {
    claim.server.close();
    store.close();
    logStream?.end();
    throw err;
  }

  // Compound signal: a quiet screen is not idle while a task runs or files are locked.
  const isProtected = () => {
    if (delivery.busy) return true;
    try {
      return hasActiveLocks(opts.cwd, agentId, env);
    } catch {
      return true;
    }
  };
  const tracker = new ScreenStatusTracker(profile, () => ({ lines: screen.viewport(), seq: screen.seq }), clock, () => isProtected());
  const injector = new Injector(terminal, profile, clock);
  const msgDir = messageFileDir(env);
  sweepMessageFiles(msgDir);
  const threshold = Number(env.SYNAPSE_LONG_MESSAGE_THRESHOLD ?? DEFAULT_LONG_MESSAGE_THRESHOLD);
  const delivery = new DeliveryLoop({
    tasks,
    screen,
    tracker,
    injector,
    profile,
    clock,
    framing: { longMessageThreshold: Number.isFinite(threshold) && threshold > 0 ? threshold : DEFAULT_LONG_MESSAGE_THRESHOLD, messageDir: msgDir },
    turnDone: (taskId, output) => replies.turnDone(taskId, output),
    ...(opts.headless ? {} : { holdForUser: () => holdForUser() }),
  });
  if (env.SYNAPSE_SCREEN_TRACE) traceScreens(env.SYNAPSE_SCREEN_TRACE, screen, tracker, delivery);
  // Foreground: the human shares the terminal with incoming messages.
  let lastUserInputAt = 0;
  const holdForUser = (): number => {
    const sinceTyping = clock.now() - lastUserInputAt;
    if (sinceTyping < USER_IDLE_MS) return USER_IDLE_MS - sinceTyping;
    const typed = profile.inputText(viewOf(screen.viewport()))?.trim();
    return typed ? USER_IDLE_MS : 0;
  };
  const graceMs = Number(env.SYNAPSE_REPLY_GRACE ?? '') * 1000;
  const replies = new ReplyCoordinator({
    tasks,
    stack: new ReplyStack(replyDir(env), agentId),
    clock,
    graceMs: Number.isFinite(graceMs) && graceMs >= 0 && env.SYNAPSE_REPLY_GRACE ? graceMs : DEFAULT_REPLY_GRACE_MS,
    self: () => entry(),
    log: (m) => log(m),
  });
  const events = new TaskEvents(clock);
  delivery.on('submitted', (t: Task) => replies.delivered(t));
  // Live output of the task in flight, at most 10 events a second.
  let outputTimer: NodeJS.Timeout | undefined;
  screen.onChange(() => {
    if (outputTimer || !delivery.busy) return;
    outputTimer = setTimeout(() => {
      outputTimer = undefined;
      const out = delivery.outputSoFar();
      if (out) events.output(out.taskId, out.text);
    }, 100);
  });
  const status = new AgentStatusModel(clock);

  screen.onChange(() => tracker.onOutput());
  terminal.onData((data) => screen.write(data));
  tracker.on('change', (r) => status.setScreen(r.status));

  // --- start-up instruction gate --------------------------------------------------------
  const resuming = opts.cliArgs.some((a) => profile.resumeFlags.includes(a) || profile.resumeFlags.some((f) => a.startsWith(`${f}=`)));
  let bootstrapTaskId: string | null = null;
  let gateOpen = false;
  const openGate = (why: string) => {
    if (gateOpen) return;
    gateOpen = true;
    log(`accepting messages (${why})`);
  };
  tracker.on('change', (r) => {
    if (r.status !== 'READY' || bootstrapTaskId !== null || gateOpen) return;
    if (resuming || env.SYNAPSE_SKIP_STARTUP_INSTRUCTION === '1') {
      openGate(resuming ? 'resumed session: no start-up instruction' : 'start-up instruction disabled');
      return;
    }
    const text = renderStartupInstruction(opts.cwd, { agent_id: agentId, port });
    if (!text) {
      openGate('empty start-up instruction');
      return;
    }
    const t = tasks.create({ message: { role: 'user', parts: [{ type: 'text', text }] }, priority: 5, metadata: { kind: 'bootstrap', response_mode: 'silent' } });
    bootstrapTaskId = t.id;
    delivery.enqueued(t, { interrupt: false });
  });

  // --- registry entry -------------------------------------------------------------------
  let currentPreview: string | null = null;
  let taskReceivedAt: string | null = null;
  const entry = (): RegistryEntry => ({
    agent_id: agentId,
    agent_type: profile.id,
    name: opts.name ?? null,
    role: opts.role ?? null,
    port,
    pid: process.pid,
    working_dir: opts.cwd,
    endpoint,
    status: status.status,
    status_updated_at: new Date(status.updatedAt).toISOString(),
    current_task_preview: currentPreview,
    task_received_at: taskReceivedAt,
    registered_at: startedAt,
    heartbeat_at: new Date(clock.now()).toISOString(),
    log_file: logFile,
    headless: opts.headless,
    synapse_version: VERSION,
  });
  let registered = false;
  const writeEntry = () => {
    if (shuttingDown) return;
    try {
      registry.write(entry());
      registered = true;
    } catch (err) {
      log(`cannot write registry entry: ${(err as Error).message}`);
    }
  };

  status.on('change', (next: AgentStatus, prev: AgentStatus) => {
    log(`status ${prev} -> ${next}`);
    events.publish('status', { agent_id: agentId, status: next, previous: prev, at: new Date(clock.now()).toISOString() });
    writeEntry();
  });

  tasks.on('updated', (task: Task, previous: string | null) => {
    if (previous !== task.status.state) log(`task ${task.id} ${previous ?? 'new'} -> ${task.status.state}`);
    events.taskUpdated(task, previous);
    webhooks.taskUpdated(task, previous);
    if (TERMINAL_STATES.has(task.status.state)) history.record(task, { agent_id: agentId, name: opts.name ?? null, agent_type: profile.id, working_dir: opts.cwd });
    if (task.status.state === 'working' && task.metadata.kind !== 'bootstrap') {
      currentPreview = preview(messageText(task.message));
      taskReceivedAt = task.updated_at;
    }
    if (task.metadata.board_task === true && previous !== task.status.state) syncBoardTask(task);
    if (['completed', 'failed', 'canceled'].includes(task.status.state)) {
      if (task.id === bootstrapTaskId) openGate(`start-up instruction ${task.status.state}`);
      else if (previous === 'working' || previous === 'input-required') status.taskFinished();
      currentPreview = null;
    }
    status.setTaskInFlight(delivery.busy);
    writeEntry();
  });

  // A message sent with `synapse send --task` has a linked board task: claimed when the turn
  // starts, completed or failed with it.
  const syncBoardTask = (task: Task) => {
    try {
      if (task.status.state === 'working') claimByA2aTask(opts.cwd, task.id, agentId);
      else if (task.status.state === 'completed') completeByA2aTask(opts.cwd, task.id);
      else if (task.status.state === 'failed' || task.status.state === 'canceled') failByA2aTask(opts.cwd, task.id, task.status.message ?? task.status.state);
    } catch (err) {
      log(`task board update for ${task.id} failed: ${(err as Error).message}`);
    }
  };

  // Listeners are in place: tasks cut off by the previous run fail visibly (webhooks, history).
  const failedOnStart = tasks.failInterrupted('the agent restarted while this task was running');
  if (failedOnStart) log(`${failedOnStart} task(s) from the previous run marked failed`);

  // --- HTTP -----------------------------------------------------------------------------
  let shuttingDown = false;
  const api: AgentApi = {
    entry,
    status: () => ({
      status: status.status,
      current_task: delivery.currentTaskId,
      queued: store.queued().length,
      ready_for_messages: gateOpen,
      started_at: startedAt,
    }),
    readyForMessages: () => gateOpen && !shuttingDown,
    peers: () => registry.listLive(),
    submit: (input) => {
      const meta = input.metadata ?? {};
      // An answer to something we asked with --wait: the asking CLI already printed it; keep it
      // on record without typing it into the terminal.
      if (typeof meta.in_reply_to === 'string' && meta.answer_mode === 'wait') {
        const t = tasks.create({ ...input, metadata: { ...meta, kind: 'answer' } });
        tasks.transition(t.id, 'working', { receipt: 'delivered' });
        return tasks.transition(t.id, 'completed', { receipt: 'answered', metadata: { delivered_to_terminal: false } }) ?? tasks.get(t.id);
      }
      const t = tasks.create(input);
      delivery.enqueued(t);
      return tasks.get(t.id);
    },
    replyStack: () => replies.stackEntries(),
    popReply: (select) => replies.pop(select),
    peekReply: (select) => replies.peek(select),
    reply: (input) => replies.reply(input),
    answerPermission: (taskId, choice) => delivery.respond(taskId, choice),
    events,
    getTask: (id) => tasks.get(id),
    listTasks: (o) => store.list(o),
    cancelTask: (id) => {
      const t = delivery.cancel(id);
      return t ?? tasks.get(id);
    },
    screen: () => ({ lines: screen.viewport(), cols: screen.cols, rows: screen.rows }),
    shutdown: (reason) => void shutdown(reason),
  };

  let app: FastifyInstance;
  try {
    app = await buildApp({
      api,
      displayName: profile.displayName,
      description: profile.description,
      workingDir: opts.cwd,
      agentId,
      env,
      server: claim.server,
      webhooks: webhookStore,
      log: (m) => log(m),
      ...(host === '127.0.0.1' || host === 'localhost' || host === '::1' ? { allowedHosts: loopbackHostCheck } : {}),
    });
    await app.ready();
    claim.attached();
  } catch (err) {
    terminal.kill('SIGKILL');
    claim.server.close();
    store.close();
    throw err;
  }

  writeEntry();
  log(`listening on ${endpoint} (pid ${process.pid}, cli pid ${terminal.pid}, ${profile.command} ${[...profile.args, ...opts.cliArgs].join(' ')})`);
  const heartbeat = setInterval(writeEntry, HEARTBEAT_MS);
  heartbeat.unref();

  // --- user terminal ----------------------------------------------------------------------
  let restoreTerminal = () => {};
  if (!opts.headless) {
    restoreTerminal = attachUserTerminal(
      terminal,
      (cols, rows) => {
        terminal.resize(cols, rows);
        screen.resize(cols, rows);
        tracker.onOutput();
      },
      () => {
        lastUserInputAt = clock.now();
      },
    );
  }

  // --- shutdown, on every exit path -------------------------------------------------------
  let resolveExit!: (code: number) => void;
  const exited = new Promise<number>((r) => (resolveExit = r));
  let cliExitCode: number | null = null;
  let shutdownPromise: Promise<number> | null = null;

  const shutdown = (reason: string): Promise<number> => {
    if (shutdownPromise) return shutdownPromise;
    shuttingDown = true;
    shutdownPromise = (async () => {
      log(`shutting down: ${reason}`);
      clearInterval(heartbeat);
      status.setExited();
      if (cliExitCode === null) {
        delivery.stopped(reason);
        // To the whole group, as a terminal hang-up does: Gemini CLI relaunches itself in a child
        // process, and a SIGHUP to the leader alone left it running until the SIGKILL.
        terminal.signalGroup('SIGHUP');
        const killTimer = setTimeout(() => terminal.signalGroup('SIGKILL'), 2000);
        await Promise.race([cliExit, new Promise((r) => setTimeout(r, 2500))]);
        clearTimeout(killTimer);
      }
      tracker.stop();
      status.stop();
      replies.stop();
      clearTimeout(outputTimer);
      registry.remove(agentId);
      restoreTerminal();
      await app.close().catch(() => undefined);
      await webhooks.stop(2000);
      history.close();
      store.close();
      screen.dispose();
      const code = cliExitCode ?? 0;
      log(`stopped (exit ${code})`);
      await new Promise<void>((r) => (logStream ? logStream.end(r) : r()));
      resolveExit(code);
      return code;
    })();
    return shutdownPromise;
  };

  const cliExit = new Promise<void>((resolve) => {
    terminal.onExit(({ exitCode, signal }) => {
      cliExitCode = exitCode;
      log(`cli exited (code ${exitCode}${signal ? `, signal ${signal}` : ''})`);
      delivery.cliExited(exitCode);
      resolve();
      void shutdown('the CLI exited');
    });
  });

  // Signals: the registry entry goes with us on every one of them.
  const onSignal = (sig: NodeJS.Signals) => void shutdown(`received ${sig}`);
  for (const sig of ['SIGTERM', 'SIGHUP', 'SIGINT'] as const) process.once(sig, onSignal);
  process.once('exit', () => {
    if (registered) registry.remove(agentId);
    restoreTerminal();
  });

  return { agentId, port, endpoint, exited, shutdown };
}
