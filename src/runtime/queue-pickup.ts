import type { NewTask } from '../agent-api/agent-api.js';
import type { Task } from '../agent-api/task.js';
import { noteSenders } from '../a2a/queue-notes.js';
import type { Clock } from '../clock.js';
import type { Env } from '../config/paths.js';
import { isSynapseError } from '../errors.js';
import { secretRedactor } from '../redact.js';
import type { RegistryEntry } from '../registry/entry.js';
import { canonicalType } from '../registry/targets.js';
import { MessageQueue, type Claimant, type QueuedMessage } from '../store/message-queue.js';

/** How often an agent that takes messages looks for ones left for it (a read; nothing when the project never queued). */
const PICKUP_EVERY_MS = 2_000;
const HOUR_MS = 3_600_000;
/** Delivered, expired and refused messages are kept this long (for `status`, and a late `send --wait`). */
const KEEP_ENDED_MS = 7 * 24 * HOUR_MS;

export interface QueuePickupOptions {
  /** The agent's working directory: its project's queue is the one it reads. */
  projectDir: string;
  env: Env;
  clock: Clock;
  log: (line: string) => void;
  /** The agent's registry entry now (its name may change with `synapse rename`). */
  self: () => RegistryEntry;
  live: () => RegistryEntry[];
  /** Whether messages may go into the inbox now: the start-up instruction is done and the agent is not stopping. */
  open: () => boolean;
  /** The agent's own way in for a message: admission, the inbox, delivery (AgentApi.submit). */
  submit: (input: NewTask) => Task;
  intervalMs?: number;
}

/**
 * Messages left in the project's queue for this agent while it was not running (issue 21 §2): at
 * READY (and every couple of seconds while it takes messages) the agent takes those that name it
 * (its name, its id, its type) into its own inbox, oldest first, each as the task the sender is
 * following (same id, same metadata: sender, response mode, so replies route as for any message).
 * It also expires messages past their TTL and tells their senders. A project where nothing was
 * ever queued has no queue file, and the agent does not make one.
 */
export class QueuePickup {
  private queue: MessageQueue | null = null;
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private stopped = false;
  private lastPurge = 0;

  constructor(private readonly opts: QueuePickupOptions) {}

  start(): void {
    this.timer = setInterval(() => this.pull(), this.opts.intervalMs ?? PICKUP_EVERY_MS);
    this.timer.unref();
  }

  /** Looks for messages now; never throws (a busy or broken queue file is logged, and asked again later). */
  pull(): void {
    if (this.running || this.stopped || !this.opts.open()) return;
    this.running = true;
    try {
      this.pullOnce();
    } catch (err) {
      this.opts.log(`queued messages: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      this.running = false;
    }
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
    this.queue?.close();
    this.queue = null;
  }

  private claimant(): { me: RegistryEntry; claimant: Claimant } {
    const me = this.opts.self();
    return { me, claimant: { agent_id: me.agent_id, name: me.name, types: [...new Set([me.agent_type, canonicalType(me.agent_type)])] } };
  }

  private pullOnce(): void {
    this.queue ??= MessageQueue.openExisting(this.opts.projectDir, { clock: this.opts.clock, redact: secretRedactor(this.opts.env) });
    const queue = this.queue;
    if (!queue) return;
    const { me, claimant } = this.claimant();
    if (!queue.hasWorkFor(claimant)) return;
    const expired = queue.expireDue();
    if (expired.length > 0) this.tell(queue, expired);
    const claimed = queue.claim(claimant, new Set(this.opts.live().map((e) => e.agent_id)));
    const back: string[] = [];
    for (const m of claimed) {
      if (back.length > 0) {
        back.push(m.id);
        continue;
      }
      const outcome = this.take(m);
      if (outcome === 'taken') queue.delivered(m.id, me.agent_id, me.endpoint);
      else if (outcome === 'later') back.push(m.id);
      else {
        const refused = queue.refuse(m.id, outcome.refused);
        if (refused) this.tell(queue, [refused]);
      }
    }
    // Not taken now (the inbox is full of that sender's messages, or the agent is stopping): waiting again, in order.
    queue.release(back);
    if (this.opts.clock.now() - this.lastPurge > HOUR_MS) {
      this.lastPurge = this.opts.clock.now();
      queue.purge(KEEP_ENDED_MS);
    }
  }

  /** Into the inbox, as the task the sender follows. */
  private take(m: QueuedMessage): 'taken' | 'later' | { refused: string } {
    try {
      this.opts.submit({
        id: m.id,
        message: m.message,
        priority: m.priority,
        metadata: { ...m.metadata, queued: { target: m.target, queued_at: m.created_at } },
      });
      this.opts.log(`took the message ${m.id} left for ${m.target} by ${m.sender_name ?? m.sender_id ?? 'a person'} at ${m.created_at}`);
      return 'taken';
    } catch (err) {
      // Taken before a restart (the task is in this agent's store already): it only needs marking.
      if (isSynapseError(err) && err.code === 'conflict') return 'taken';
      if (isSynapseError(err) && (err.code === 'queue_full' || err.code === 'agent_not_ready')) return 'later';
      return { refused: err instanceof Error ? err.message : String(err) };
    }
  }

  private tell(queue: MessageQueue, messages: QueuedMessage[]): void {
    void noteSenders(messages, { env: this.opts.env, live: this.opts.live(), log: this.opts.log })
      .then((ids) => {
        if (this.queue === queue) queue.noted(ids);
      })
      .catch((err: unknown) => this.opts.log(`queued messages: ${err instanceof Error ? err.message : String(err)}`));
  }
}
