import { secretRedactor } from '../redact.js';
import { messageText, type Task } from '../agent-api/task.js';
import { iso, type Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { RegistryEntry } from '../registry/entry.js';
import { HEARTBEAT_MS, ownStartTicks } from '../registry/liveness.js';
import type { RegistryMirror } from './registry-mirror.js';
import type { FileRegistry } from '../registry/registry.js';
import { VERSION } from '../version.js';
import { AgentStatusModel } from './agent-status.js';

/** Who this agent is: what its registry entry says besides status and heartbeat. */
export interface AgentIdentity {
  agentId: string;
  type: string;
  name: string | null;
  role: string | null;
  port: number;
  workingDir: string;
  endpoint: string;
  startedAt: string;
  logFile: string | null;
  headless: boolean;
  /**
   * More fields for the entry, written after ours (the original ignores them): `spawned_by_pid`,
   * `pane`, `skill_set` of an agent started by `synapse spawn` (team/spawn.ts).
   */
  extras?: Record<string, unknown>;
}

/** Credential shapes are redacted from the preview every agent (and the original) can read. */
const redactShapes = secretRedactor({});

function preview(text: string): string {
  const flat = redactShapes(text).replace(/\s+/g, ' ').trim();
  return flat.length > 80 ? `${flat.slice(0, 79)}…` : flat;
}

/**
 * The agent as others find it: its status (`AgentStatusModel`) and its registry entry, rewritten
 * on every status or task change and at least every HEARTBEAT_MS, removed on stop (and, should the
 * process end some other way, on exit).
 */
export class Presence {
  readonly status: AgentStatusModel;
  private currentPreview: string | null = null;
  private taskReceivedAt: string | null = null;
  private registered = false;
  private stopped = false;
  private heartbeat: NodeJS.Timeout | undefined;
  /** Recorded so that readers can tell this process from a later one that reuses its pid. */
  private readonly startTicks = ownStartTicks();
  private readonly removeOnExit = () => {
    if (this.registered) this.registry.remove(this.identity.agentId);
  };

  constructor(
    private readonly identity: AgentIdentity,
    private readonly registry: FileRegistry,
    private readonly clock: Clock,
    private readonly log: Logger,
    /** A PostgreSQL store's registry table, written with the file (issue 22 §2); and how often to beat. */
    private readonly remote: { mirror: RegistryMirror | null; heartbeatMs: number } = { mirror: null, heartbeatMs: HEARTBEAT_MS },
  ) {
    this.status = new AgentStatusModel(clock);
  }

  entry(): RegistryEntry {
    const id = this.identity;
    const entry: RegistryEntry = {
      agent_id: id.agentId,
      agent_type: id.type,
      name: id.name,
      role: id.role,
      port: id.port,
      pid: process.pid,
      pid_starttime: this.startTicks,
      working_dir: id.workingDir,
      endpoint: id.endpoint,
      status: this.status.status,
      status_updated_at: iso(this.status.updatedAt),
      current_task_preview: this.currentPreview,
      task_received_at: this.taskReceivedAt,
      registered_at: id.startedAt,
      heartbeat_at: iso(this.clock.now()),
      log_file: id.logFile,
      headless: id.headless,
      synapse_version: VERSION,
    };
    return id.extras ? Object.assign(Object.fromEntries(Object.entries(id.extras).filter(([k]) => !(k in entry))), entry) : entry;
  }

  /** `synapse rename` (`POST /rename`): a new name and/or role (null clears it), written at once. */
  rename(change: { name?: string | null; role?: string | null }): RegistryEntry {
    if (change.name !== undefined) this.identity.name = change.name;
    if (change.role !== undefined) this.identity.role = change.role;
    this.write();
    return this.entry();
  }

  /** Rewrites the entry (atomically); a failure is logged, the agent goes on. */
  write(): void {
    if (this.stopped) return;
    try {
      const entry = this.entry();
      this.registry.write(entry);
      this.registered = true;
      this.remote.mirror?.put(entry);
    } catch (err) {
      this.log.error(`cannot write registry entry: ${(err as Error).message}`);
    }
  }

  /** The CURRENT column: what the agent works on now (a person's message, not the start-up instruction). */
  taskWorking(task: Task): void {
    this.currentPreview = preview(messageText(task.message));
    this.taskReceivedAt = task.updated_at;
  }

  taskEnded(): void {
    this.currentPreview = null;
  }

  start(): void {
    process.once('exit', this.removeOnExit);
    this.write();
    const beat = () => {
      this.write();
      this.heartbeat = this.clock.setTimeout(beat, this.remote.heartbeatMs);
      this.heartbeat.unref?.();
    };
    this.heartbeat = this.clock.setTimeout(beat, this.remote.heartbeatMs);
    this.heartbeat.unref?.();
  }

  /** Shutdown begins: no more writes or heartbeats, status EXITED (the entry goes in `stop`). */
  stopping(): void {
    this.stopped = true;
    this.clock.clearTimeout(this.heartbeat);
    this.status.setExited();
  }

  /** Removes the entry (the file at once; the table row before this resolves). */
  async stop(): Promise<void> {
    this.stopping();
    this.status.stop();
    this.registry.remove(this.identity.agentId);
    process.off('exit', this.removeOnExit);
    await this.remote.mirror?.stop(this.identity.agentId);
  }

  /** Live agents on other hosts have this endpoint (see `RegistryMirror.hasEndpoint`); false without a table. */
  remoteEndpoint(endpoint: string): Promise<boolean> {
    return this.remote.mirror?.hasEndpoint(endpoint) ?? Promise.resolve(false);
  }
}
