import fs from 'node:fs';
import path from 'node:path';
import { TERMINAL_STATES, type Task } from '../agent-api/task.js';
import { iso, type Clock } from '../clock.js';
import { renderStartupInstruction } from '../config/instructions.js';
import { hasSynapseMcpEntry } from '../config/mcp-entry.js';
import { loadSettings, type Settings } from '../config/settings.js';
import { completionGate, gateIdle, QualityGates } from './hooks.js';
import { agentStateDir, messageFileDir, replyDir, type Env } from '../config/paths.js';
import type { Logger } from '../logger.js';
import type { Profile } from '../profiles/types.js';
import { isResuming } from '../profiles/args.js';
import { secretRedactor, type Redactor } from '../redact.js';
import { describeExit, writeExitRecord } from '../registry/exit-record.js';
import type { RegistryEntry } from '../registry/entry.js';
import type { FileRegistry } from '../registry/registry.js';
import { ReplyStack } from '../registry/reply-stack.js';
import { AgentTaskStore } from '../store/agent-tasks.js';
import { createHistoryRecording, type HistoryRecording } from '../store/history-recorder.js';
import { WebhookStore } from '../store/webhooks.js';
import { agentApi } from './agent-api-impl.js';
import type { AgentSettings } from './agent-settings.js';
import { AgentHttp } from './agent-http.js';
import { logLevel, openAgentLog, type AgentLog } from './agent-log.js';
import { BoardSync } from './board-link.js';
import { CliSession } from './cli-session.js';
import { DeliveryLoop } from './delivery.js';
import type { EarlyCli } from './early-cli.js';
import type { OptimizerGate } from './optimizer-gate.js';
import { startMessageSweep } from './message-files.js';
import { startFileSafetyRetention } from './file-safety-retention.js';
import { startIdempotencySweep } from './idempotency-sweep.js';
import { startLockSignal } from './lock-signal.js';
import { LiveOutput } from './live-output.js';
import type { UserTerminal } from './passthrough.js';
import type { PortClaim } from './port-claim.js';
import { Lease, type LeaseRecord, type LeaseTerms } from './lease.js';
import { Presence, type AgentIdentity } from './presence.js';
import { presenceRemote } from './registry-mirror.js';
import { QueuePickup } from './queue-pickup.js';
import { ReplyCoordinator } from './replies.js';
import { traceScreens } from './screen-trace.js';
import { StartupGate } from './startup-gate.js';
import { TaskEvents } from './task-events.js';
import { IdleCollector, v8Heap } from './idle-gc.js';
import { TaskManager } from './tasks.js';
import { UsageTracker } from './usage-tracker.js';
import { usageSource } from './usage-sources.js';
import { WebhookDispatcher } from './webhook-dispatcher.js';
import { envSetting } from '../config/env-setting.js';
import { exposureWarning } from './bind-host.js';
import { apiKeyHeaders } from '../config/auth-keys.js';

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
  /** The merged settings (read from `cwd` and `env` when not given). */
  settings?: Settings;
  /**
   * Asked once the port is claimed, before the CLI is spawned (`approvalMode: required` on a
   * terminal): `skip` starts without the start-up instruction; a throw stops the start.
   */
  approve?: (who: { agentId: string; port: number }) => Promise<'proceed' | 'skip'>;
  /**
   * More fields for the registry entry, written after the standard ones (which they cannot
   * replace): `spawned_by_pid`, `pane`, `skill_set` of an agent started by `synapse spawn`,
   * `worktree` {name, path, branch} of an agent started with `--worktree`, `delegate_mode: true`
   * of a manager started with `--delegate-mode` (its start-up instruction then says so too).
   */
  extras?: Record<string, unknown>;
  /** No start-up instruction (answered `s` at the approval prompt). */
  skipInstruction?: boolean;
  /**
   * A spawned helper's lease (`synapse spawn --keep-idle/--keep-turns`): it ends by itself.
   * `record` is the registry entry's `lease` object (in `extras`), kept up to date.
   */
  lease?: { terms: LeaseTerms; record: LeaseRecord };
  clock?: Clock;
}

/** How the CLI exited when it exited by itself (not stopped by synapse). */
export interface CliExit {
  exitCode: number;
  signal: number | null;
  /** Before the agent took messages: its start-up instruction was not done. */
  duringStartup: boolean;
  /** What it last showed: the reason is almost always there. */
  lastLines: string[];
}

export interface RunningAgent {
  agentId: string;
  port: number;
  endpoint: string;
  /** The agent's log; the foreground runner routes stray console output into it. */
  logger: Logger;
  /** Resolves with the exit code once the agent has shut down completely. */
  exited: Promise<number>;
  /** Once `exited` resolved: how the CLI exited, or null when synapse stopped it. */
  cliExit(): CliExit | null;
  shutdown(reason: string): Promise<number>;
}

/** What `startAgent` (start-agent.ts) has done before the rest of the agent loaded: the port claimed, the CLI spawned. */
export interface EarlyStart {
  identity: AgentIdentity;
  settings: AgentSettings;
  claim: PortClaim;
  host: string;
  registry: FileRegistry;
  clock: Clock;
  cli: EarlyCli;
  /** V8's compilers past its interpreter, held off until the CLI's output turns them on. */
  optimizer: OptimizerGate;
  /** Its command line, for the log. */
  commandLine: string;
  /** Environment variables not passed to the CLI (the profile's `dropEnv`), for the log. */
  droppedEnv: string[];
  /** The profile's own args left out because the user passes the same flag, for the log. */
  droppedArgs: string[];
  size: { cols: number; rows: number };
  /** The person's terminal, already attached (foreground only). */
  user: UserTerminal | null;
}

/** How many lines of the screen an exit report shows. */
const EXIT_REPORT_LINES = 12;

/** Why the CLI gets no start-up instruction typed in, or null when it does. */
function startupSkip(profileId: string, cwd: string, env: Env, skippedAtApproval: boolean): string | null {
  if (skippedAtApproval) return 'skipped at the start-up approval prompt';
  if (envSetting(env, 'SYNAPSE_SKIP_STARTUP_INSTRUCTION')) return 'SYNAPSE_SKIP_STARTUP_INSTRUCTION is set';
  if (hasSynapseMcpEntry(profileId, cwd, env)) return `${profileId}'s MCP configuration starts the Synapse MCP server (bootstrap_agent)`;
  return null;
}

/** `cli exited (code 42) during start-up; its last lines on screen:` and the lines, indented. */
export function exitReport(exit: CliExit): string {
  const head = `cli exited (code ${exit.exitCode}${exit.signal ? `, signal ${exit.signal}` : ''})${exit.duringStartup ? ' during start-up' : ''}`;
  if (exit.lastLines.length === 0) return `${head}; its screen was empty`;
  return `${head}; its last lines on screen:\n${exit.lastLines.map((l) => `  | ${l}`).join('\n')}`;
}

/**
 * The composition root: one agent = one PTY-wrapped CLI + its HTTP server + its registry entry.
 * The port is claimed and the CLI spawned first (start-agent.ts); the components are then built
 * in one order, each from the ones before it, wired by events, and started; shutdown stops them
 * in the order of `Agent.shutdown`. On a failure here the caller stops the CLI and frees the port.
 */
export async function composeAgent(opts: AgentOptions, early: EarlyStart): Promise<RunningAgent> {
  const log = openAgentLog(early.identity.agentId, opts.headless ? null : early.identity.logFile, logLevel(opts.env));
  let agent: Agent;
  try {
    agent = new Agent(opts, { ...early, log });
  } catch (err) {
    await log.close();
    throw err;
  }
  await agent.start();
  return agent.handle();
}

interface Foundation extends EarlyStart {
  log: AgentLog;
}

class Agent {
  private readonly logger: Logger;
  private readonly store: AgentTaskStore;
  private readonly tasks: TaskManager;
  private readonly events: TaskEvents;
  private readonly webhookStore: WebhookStore;
  private readonly webhooks: WebhookDispatcher;
  private readonly history: HistoryRecording;
  private readonly boardSync: BoardSync;
  private readonly session: CliSession;
  private readonly user: UserTerminal | null;
  private readonly presence: Presence;
  private readonly settings: Settings;
  private readonly gates: QualityGates;
  private readonly replies: ReplyCoordinator;
  private readonly delivery: DeliveryLoop;
  private readonly gate: StartupGate;
  private readonly liveOutput: LiveOutput;
  private readonly http: AgentHttp;
  /** Reads the CLI's own usage records after each turn; null for a CLI that keeps none. */
  private readonly usage: UsageTracker | null;
  /** Made in `wire` (a spawned helper's lease), null without one. */
  private lease: Lease | null = null;
  private shutdownPromise: Promise<number> | null = null;
  private stopSweep: () => void = () => undefined;
  /** Takes messages left in the project's queue for this agent (made in `start`, once it serves). */
  private pickup: QueuePickup | null = null;
  private stopLockSignal: () => void = () => undefined;
  private idleGc: IdleCollector | null = null;
  private cliExited: CliExit | null = null;
  private resolveExit: (code: number) => void = () => undefined;
  private readonly exited = new Promise<number>((r) => (this.resolveExit = r));

  /** Builds every component, in dependency order; spawns the CLI. Undoes what it did when that fails. */
  constructor(
    private readonly opts: AgentOptions,
    private readonly f: Foundation,
  ) {
    const { identity, clock, registry } = f;
    const { profile, env } = opts;
    this.logger = f.log.logger;
    const log = (m: string) => this.logger.info(m);
    const redact = secretRedactor(env); // credentials never reach what is kept (issue 21 §4)
    this.store = openTaskStore(env, identity.agentId, redact, clock);
    this.tasks = new TaskManager(this.store, clock);
    this.events = new TaskEvents(clock);
    this.webhookStore = new WebhookStore(this.store.db, clock, f.settings.limits.webhooks);
    this.webhooks = new WebhookDispatcher({ store: this.webhookStore, env, log, clock, agentId: identity.agentId, tls: f.settings.peerTls, redact });
    this.history = createHistoryRecording(env, opts.cwd, { log, warn: (m) => this.logger.warn(m) });
    this.boardSync = new BoardSync({ projectDir: opts.cwd, agentId: identity.agentId, env, log: this.logger });
    try {
      this.session = new CliSession({ profile, cli: f.cli, commandLine: f.commandLine, size: f.size, clock, scrollbackLines: f.settings.scrollbackLines });
    } catch (err) {
      this.store.close();
      throw err;
    }
    this.logStartNotes(log);
    this.user = f.user;
    this.user?.bind(this.session);
    this.presence = new Presence(identity, registry, clock, this.logger, presenceRemote(opts.cwd, env, f.host, log));
    this.settings = opts.settings ?? loadSettings(opts.cwd, env);
    this.gates = new QualityGates({ hooks: this.settings.hooks, env, cwd: opts.cwd, agentId: identity.agentId, log });
    this.replies = this.buildReplies();
    this.delivery = this.buildDelivery();
    this.usage = this.buildUsage();
    this.gate = new StartupGate({
      tracker: this.session.tracker,
      tasks: this.tasks,
      delivery: this.delivery,
      resuming: isResuming(this.settings.resumeFlags[profile.id] ?? profile.resumeFlags, opts.cliArgs),
      skip: startupSkip(profile.id, opts.cwd, env, opts.skipInstruction === true),
      instruction: () =>
        renderStartupInstruction(profile.id, this.settings, opts.cwd, env, {
          agent_id: identity.agentId,
          port: identity.port,
          endpoint: identity.endpoint,
          name: opts.name ?? null,
          role: opts.role ?? null,
          delegate: opts.extras?.delegate_mode === true,
        }),
      log: this.logger,
    });
    this.liveOutput = new LiveOutput(this.session.screen, this.delivery, this.events, clock);
    this.http = new AgentHttp(
      f.claim,
      f.host,
      {
        api: this.api(),
        displayName: profile.displayName,
        description: profile.description,
        workingDir: opts.cwd,
        agentId: identity.agentId,
        env,
        webhooks: this.webhookStore,
        corsOrigins: f.settings.corsOrigins,
        auth: f.settings.auth,
        limits: f.settings.limits,
        tls: f.settings.tls,
        log,
      },
      f.settings.allowedHosts,
    );
    this.wire();
  }

  /** Routes each answer back to whoever waits for it (reply stack, --wait, --notify), after the completion gate. */
  private buildReplies(): ReplyCoordinator {
    const { identity, clock, registry } = this.f;
    const { env } = this.opts;
    const log = (m: string) => this.logger.info(m);
    const f = this.f;
    return new ReplyCoordinator({
      tasks: this.tasks,
      stack: new ReplyStack(replyDir(env), identity.agentId),
      clock,
      graceMs: f.settings.replyGraceMs,
      self: () => this.presence.entry(),
      // This host's registry, else (a PostgreSQL store) the registry table: an agent on another host.
      isAgentEndpoint: (endpoint) => isRegisteredEndpoint(registry.listLive(), endpoint) || this.presence.remoteEndpoint(endpoint),
      log,
      peerHeaders: () => apiKeyHeaders(env),
      tls: f.settings.peerTls,
      beforeComplete: completionGate(this.gates),
    });
  }

  /** What the start changed of what the user asked for, and a bind beyond loopback without auth: said once in the log. */
  private logStartNotes(log: (m: string) => void): void {
    const { f } = this;
    const { profile, env } = this.opts;
    if (f.droppedEnv.length)
      log(`not passed to ${profile.id}: ${f.droppedEnv.join(', ')} (they would make it run as if nobody started it; guides/profiles.md)`);
    const exposed = exposureWarning(f.host, env);
    if (exposed) log(exposed);
    if (f.droppedArgs.length) log(`passed once: ${f.droppedArgs.join(' ')} (the ${profile.id} profile passes it, and so do the CLI args)`);
    f.optimizer.whenReleased((chars, compilers) =>
      log(`V8's compilers on (${compilers.join(', ')}): ${profile.id} has written ${Math.round(chars / 1024)} KiB (SYNAPSE_OPTIMIZE_AFTER_KB)`),
    );
    const withheld = this.opts.extras?.settings_withheld;
    if (Array.isArray(withheld) && withheld.length > 0)
      this.logger.warn(
        `NOT APPLIED: ${withheld.join(', ')} of the project's settings (not trusted); \`synapse trust\` in ${this.opts.cwd} applies them to agents started afterwards`,
      );
  }

  /** The helper's lease: when it runs out, the agent ends as a `synapse kill` would end it, once answers in flight are out. */
  private buildLease(lease: { terms: LeaseTerms; record: LeaseRecord }): Lease {
    return new Lease({
      terms: lease.terms,
      record: lease.record,
      clock: this.f.clock,
      status: this.presence.status,
      inFlight: () => this.delivery.busy,
      queued: () => this.tasks.store.queued().length > 0,
      end: (reason) => {
        this.logger.info(`ending: ${reason}`);
        this.presence.write();
        void this.replies.settled().then(() => this.shutdown(reason));
      },
    });
  }

  /** Token usage per task from the CLI's session files (issue 20 §3), kept on the task as `metadata.usage`. */
  private buildUsage(): UsageTracker | null {
    const { profile, env, cwd, extras } = this.opts;
    if (!profile.usageLog) return null;
    const { clock, identity } = this.f;
    const source = usageSource({
      kind: profile.usageLog,
      cwd,
      env,
      sessionId: () => (typeof extras?.session_id === 'string' ? extras.session_id : null),
      startedAtMs: Date.parse(identity.startedAt) || clock.now(),
      now: () => clock.now(),
    });
    return new UsageTracker({
      source,
      clock,
      log: (m) => this.logger.info(m),
      attach: (taskId, usage) => void this.tasks.annotate(taskId, { usage }),
    });
  }

  private buildDelivery(): DeliveryLoop {
    const { env } = this.opts;
    const msgDir = messageFileDir(env);
    const stopMessageSweep = startMessageSweep(msgDir, this.f.settings.longMessageTtlMs);
    const stopRetention = startFileSafetyRetention(this.opts.cwd, env, this.f.settings.fileSafetyRetentionDays, (l) => this.logger.info(l));
    const stopKeySweep = startIdempotencySweep(this.store.idempotency, (l) => this.logger.info(l));
    this.stopSweep = () => {
      stopMessageSweep();
      stopRetention();
      stopKeySweep();
    };
    const user = this.user;
    return new DeliveryLoop({
      tasks: this.tasks,
      screen: this.session.screen,
      tracker: this.session.tracker,
      injector: this.session.injector,
      profile: this.opts.profile,
      clock: this.f.clock,
      framing: { longMessageThreshold: this.f.settings.longMessageThreshold, messageDir: msgDir },
      turnDone: (taskId, output, transcript) => this.replies.turnDone(taskId, output, transcript),
      // Built after the loop (it gives the loop the instruction); asked only once the CLI runs.
      // A helper whose lease is spent takes nothing more.
      admits: (task) => this.gate.admits(task) && !this.lease?.closed,
      ...(user ? { holdForUser: () => user.holdForUser() } : {}),
    });
  }

  private api() {
    return agentApi({
      store: this.store,
      idempotency: this.store.idempotency,
      tasks: this.tasks,
      events: this.events,
      session: this.session,
      delivery: this.delivery,
      replies: this.replies,
      presence: this.presence,
      gate: this.gate,
      registry: this.f.registry,
      limits: this.f.settings.limits,
      history: this.history,
      startedAt: this.f.identity.startedAt,
      isShuttingDown: () => this.shutdownPromise !== null || this.lease?.closed === true,
      shutdown: (reason) => void this.shutdown(reason),
      teamOp: async (op, request) =>
        (await import('./team-op.js')).runTeamOp(op, request, { env: this.opts.env, cwd: this.opts.cwd, agentId: this.f.identity.agentId }),
    });
  }

  /** The events between components: each line says who reacts to what. */
  private wire(): void {
    const { identity, clock } = this.f;
    const { env, cwd } = this.opts;
    // Compound signal: a quiet screen is not idle while a task runs or files are locked.
    const locks = startLockSignal(cwd, identity.agentId, env, this.presence.status);
    this.session.protectWhile(() => this.delivery.busy || locks.held());
    gateIdle(this.gates, this.session.tracker, this.presence.status, (m) => this.logger.warn(m));
    this.stopLockSignal = () => locks.stop();
    this.session.tracker.on('change', (r: { status: 'READY' | 'PROCESSING' | 'WAITING' }) => {
      if (r.status === 'READY') locks.refresh();
      this.presence.status.setScreen(r.status);
    });
    this.delivery.on('submitted', (t: Task) => this.replies.delivered(t));
    // Bootstrap turns are not in the history: their usage is passed over with the rest.
    this.delivery.on('delivering', (t: Task) => (t.metadata.kind === 'bootstrap' ? this.usage?.settle() : this.usage?.begin(t)));
    this.delivery.on('finished', (taskId: string) => this.usage?.end(taskId));
    this.delivery.on('busy', (busy: boolean) => this.presence.status.setTaskInFlight(busy));
    // Before the entry is written on a status change, so that it shows the lease as it is now.
    if (this.opts.lease) (this.lease = this.buildLease(this.opts.lease)).start();
    this.delivery.on('busy', () => this.lease?.check());
    // After work (start-up too), the code that ran once and the heap the work grew go back to the system (idle-gc.ts).
    const idleGc = (this.idleGc = new IdleCollector(
      v8Heap((l) => this.logger.info(l)),
      clock,
      this.f.settings.idleGcMs,
    ));
    this.delivery.on('busy', (busy: boolean) => idleGc.busy(busy));
    this.presence.status.on('change', (next: string) => next === 'READY' && idleGc.started());
    const trace = envSetting(env, 'SYNAPSE_SCREEN_TRACE');
    if (trace) traceScreens(trace, this.session.screen, this.session.tracker, this.delivery, secretRedactor(env));
    this.presence.status.on('change', (next: string, prev: string) => {
      this.logger.info(`status ${prev} -> ${next}`);
      this.events.publish('status', { agent_id: identity.agentId, status: next, previous: prev, at: iso(clock.now()) });
      this.presence.write();
      // READY: messages left for this agent while it was away go into its inbox (after this
      // change has been handled everywhere: the start-up gate may open in the same turn).
      if (next === 'READY') setImmediate(() => this.pickup?.pull());
    });
    this.tasks.on('updated', (task: Task, previous: string | null) => this.taskUpdated(task, previous));
    void this.session.exited.then(async ({ exitCode, signal }) => {
      if (this.shutdownPromise !== null) {
        // Hung up by a stop (which ends the task in flight itself): nothing to explain.
        this.logger.info(`cli exited (code ${exitCode}${signal ? `, signal ${signal}` : ''})`);
        return;
      }
      // Exited by itself: say why the agent goes away, from what the CLI last showed.
      await this.session.screen.flushed();
      const exit: CliExit = {
        exitCode,
        signal: signal || null,
        duringStartup: !this.gate.isOpen,
        lastLines: this.session.screen.lastLines(EXIT_REPORT_LINES),
      };
      this.logger.info(exitReport(exit));
      this.recordExit(exit);
      this.delivery.cliExited(exitCode);
      void this.shutdown('the CLI exited');
    });
  }

  /** The exit, for `synapse start` (which waits on this process), `list` and `logs`. */
  private recordExit(exit: CliExit): void {
    this.cliExited = exit;
    const { identity, clock } = this.f;
    try {
      writeExitRecord(
        {
          agent_id: identity.agentId,
          name: identity.name,
          agent_type: identity.type,
          port: identity.port,
          pid: process.pid,
          working_dir: identity.workingDir,
          exited_at: iso(clock.now()),
          exit_code: exit.exitCode,
          signal: exit.signal,
          during_startup: exit.duringStartup,
          last_lines: exit.lastLines,
          log_file: identity.logFile,
        },
        this.opts.env,
      );
    } catch (err) {
      this.logger.warn(
        `could not record the exit (${describeExit({ exit_code: exit.exitCode, signal: exit.signal, during_startup: exit.duringStartup })}): ${(err as Error).message}`,
      );
    }
  }

  /** Every persisted task change: journal, webhooks, history, registry entry, board, status. */
  private taskUpdated(task: Task, previous: string | null): void {
    const { identity } = this.f;
    const state = task.status.state;
    if (previous !== state) this.logger.info(`task ${task.id} ${previous ?? 'new'} -> ${state}`);
    this.events.taskUpdated(task, previous);
    this.webhooks.taskUpdated(task, previous);
    if (TERMINAL_STATES.has(state))
      this.history.record(task, { agent_id: identity.agentId, name: identity.name, agent_type: identity.type, working_dir: identity.workingDir });
    // A task made with POST /tasks/create only waits for an answer: the CLI is not working on it.
    const cliWork = task.metadata.kind !== 'outgoing';
    if (state === 'working' && task.metadata.kind !== 'bootstrap' && cliWork) this.presence.taskWorking(task);
    if (task.metadata.board_task === true && previous !== state) this.boardSync.update(task);
    if (TERMINAL_STATES.has(state)) {
      if (this.gate.isBootstrap(task.id)) this.gate.taskEnded(task);
      else if (cliWork && (previous === 'working' || previous === 'input-required')) {
        this.presence.status.taskFinished();
        if (state === 'completed') this.lease?.answered();
      }
      if (cliWork) this.presence.taskEnded();
    }
    this.lease?.check();
    this.presence.write();
  }

  async start(): Promise<void> {
    this.gate.start();
    this.liveOutput.start();
    // First: what the last run left in the webhook outbox (before new events join it).
    this.webhooks.resume();
    // Listeners are in place: tasks cut off by the previous run fail visibly (webhooks, history).
    const failedOnStart = this.tasks.failInterrupted('the agent restarted while this task was running');
    if (failedOnStart) this.logger.info(`${failedOnStart} task(s) from the previous run marked failed`);
    try {
      await this.http.start();
    } catch (err) {
      this.store.close();
      throw err;
    }
    this.presence.start();
    this.pickup = this.buildPickup();
    this.pickup.start();
    const { identity } = this.f;
    this.logger.info(`listening on ${identity.endpoint} (pid ${process.pid}, cli pid ${this.session.terminal.pid}, ${this.session.commandLine})`);
    // Signals: the registry entry goes with us on every one of them.
    const onSignal = (sig: NodeJS.Signals) => void this.shutdown(`received ${sig}`);
    for (const sig of ['SIGTERM', 'SIGHUP', 'SIGINT'] as const) process.once(sig, onSignal);
  }

  /** Messages left in the project's queue for this agent (issue 21 §2), taken through its own `submit`. */
  private buildPickup(): QueuePickup {
    const api = this.api();
    return new QueuePickup({
      projectDir: this.opts.cwd,
      env: this.opts.env,
      clock: this.f.clock,
      log: (l) => this.logger.info(l),
      self: () => this.presence.entry(),
      live: () => this.f.registry.listLive(),
      open: () => this.gate.isOpen && this.shutdownPromise === null,
      submit: (input) => api.submit(input),
    });
  }

  handle(): RunningAgent {
    const { agentId, port, endpoint } = this.f.identity;
    return {
      agentId,
      port,
      endpoint,
      logger: this.logger,
      exited: this.exited,
      cliExit: () => this.cliExited,
      shutdown: (reason) => this.shutdown(reason),
    };
  }

  /** Stops everything once, in this order, on every exit path. Resolves with the CLI's exit code. */
  shutdown(reason: string): Promise<number> {
    this.shutdownPromise ??= (async () => {
      this.logger.info(`shutting down: ${reason}`);
      this.presence.stopping();
      this.pickup?.stop();
      this.lease?.stop();
      this.idleGc?.stop();
      if (this.session.exitedWith === null) {
        this.delivery.stopped(reason);
        await this.session.hangUp();
      }
      this.session.tracker.stop();
      this.replies.stop();
      this.usage?.stop();
      this.stopSweep();
      this.stopLockSignal();
      this.liveOutput.stop();
      await this.presence.stop();
      this.user?.stop();
      await this.http.stop().catch(() => undefined);
      // Webhooks and a history written to a network store drain side by side, each with its deadline.
      await Promise.all([this.webhooks.stop(2000), this.history.close()]);
      await this.boardSync.settled();
      this.store.close();
      this.session.stop();
      const code = this.session.exitedWith ?? 0;
      this.logger.info(`stopped (exit ${code})`);
      await this.f.log.close();
      this.resolveExit(code);
      return code;
    })();
    return this.shutdownPromise;
  }
}

/** scheme://host:port of an endpoint, every loopback name spelled one way (the original registers `localhost`); null when it is no URL. */
function endpointKey(endpoint: string): string | null {
  try {
    const u = new URL(endpoint);
    const host = ['localhost', '127.0.0.1', '[::1]'].includes(u.hostname) ? 'loopback' : u.hostname;
    return `${u.protocol}//${host}:${u.port}`;
  } catch {
    return null;
  }
}

/** A live registry entry has this endpoint. */
function isRegisteredEndpoint(live: readonly RegistryEntry[], endpoint: string): boolean {
  const want = endpointKey(endpoint);
  return want !== null && live.some((e) => endpointKey(e.endpoint) === want);
}

/** The agent's own SQLite file in its private state directory. */
function openTaskStore(env: Env, agentId: string, redact: Redactor, clock: Clock): AgentTaskStore {
  const stateDir = agentStateDir(env);
  fs.mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  return new AgentTaskStore(path.join(stateDir, `${agentId}.db`), { redact, clock });
}
