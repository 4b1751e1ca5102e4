import fs from 'node:fs';
import { followSse } from '../a2a/sse-client.js';
import { peerTls } from '../a2a/peer-tls.js';
import { apiKeyHeaders } from '../config/auth-keys.js';
import { registryDir, type Env } from '../config/paths.js';
import type { RegistryEntry } from '../registry/entry.js';
import { qualifyIds, type HostedEntry } from '../registry/host.js';
import { openRegistry } from '../registry/lookup.js';
import type { RegistryProblem } from '../registry/registry.js';
import { SynapseError } from '../errors.js';
import type { RemoteAgents } from '../store/discovery.js';
import { editingFrom, type HeldLock } from '../store/editing.js';
import { editingFileOf } from '../store/file-safety.js';
import type { AgentRow, Editing } from './columns.js';

/** One read of the team: the live agents (dead entries pruned) and the registry files skipped. */
export interface Snapshot {
  agents: AgentRow[];
  problems: RegistryProblem[];
  /** With a PostgreSQL store: why other hosts' agents are missing (the store cannot be read), else null. */
  remoteError?: string | null;
}

/** Why the monitor read the registry again (`remote`: a read of the registry table came in). */
export type RefreshCause = 'start' | 'registry' | 'events' | 'poll' | 'action' | 'remote';

/**
 * Other hosts' agents (a PostgreSQL store, store/discovery.ts): the registry table has no watch,
 * so it is read on start and every `everyMs` (the heartbeat interval), one read at a time.
 */
export interface RemoteFeed {
  /** This host's name: its agents get it as HOST. */
  host: string;
  everyMs: number;
  read: () => Promise<RemoteRead>;
}

/** One poll of the store: the other hosts' agents, and every host's locks (EDITING_FILE; null: the store could not be read). */
export type RemoteRead = RemoteAgents & { locks: HeldLock[] | null };

function editingOf(entry: RegistryEntry, env: Env): Editing {
  try {
    return editingFileOf(entry.working_dir, entry.agent_id, env);
  } catch {
    return 'unreadable';
  }
}

/** The registry now, with the file each agent edits. */
export function readSnapshot(env: Env): Snapshot {
  const { entries, problems } = openRegistry(env).scanLive();
  return { agents: entries.map((entry) => ({ entry, editing: editingOf(entry, env) })), problems };
}

/** Follows an agent's `GET /events` until `signal` aborts or the stream gives up; `onEvent` per event. */
export type FollowEvents = (entry: RegistryEntry, signal: AbortSignal, onEvent: () => void) => Promise<void>;

function followAgentEvents(env: Env): FollowEvents {
  return (entry, signal, onEvent) =>
    followSse(
      `${entry.endpoint}/events`,
      () => {
        onEvent();
      },
      { signal, tls: peerTls(env), headers: apiKeyHeaders(env), maxReconnects: 3 },
    );
}

export interface SourceOptions {
  env: Env;
  /** The fallback read, in case a change slipped past the watch and the streams (10 s). */
  pollMs?: number;
  /** Changes closer together than this make one read. */
  debounceMs?: number;
  read?: (env: Env) => Snapshot;
  followEvents?: FollowEvents;
  remote?: RemoteFeed;
}

/**
 * Where the monitor's data comes from, apart from how it is shown: the registry directory
 * (fs.watch: every status change rewrites the agent's entry), each of our agents' `/events`
 * stream (a status or task event the moment it happens), and a read every 10 s as a fallback.
 * Each signal asks for a read; reads close together are one.
 */
export class MonitorSource {
  private readonly pollMs: number;
  private readonly debounceMs: number;
  private readonly read: (env: Env) => Snapshot;
  private readonly followEvents: FollowEvents;
  private listener: ((snapshot: Snapshot, cause: RefreshCause) => void) | null = null;
  private watcher: fs.FSWatcher | null = null;
  private poll: NodeJS.Timeout | null = null;
  private remotePoll: NodeJS.Timeout | null = null;
  private remoteInFlight = false;
  /** The last read of the registry table (before the first one: none, no warning). */
  private remote: RemoteRead | null = null;
  private pending: NodeJS.Timeout | null = null;
  /** Open `/events` streams by agent (id and pid: a restarted agent is a new stream). */
  private readonly streams = new Map<string, AbortController>();
  /** When a stream last failed: it is tried again after pollMs, not on every read. */
  private readonly failedAt = new Map<string, number>();
  /** Agents with no `/events` (404): not asked again. */
  private readonly noEvents = new Set<string>();
  private stopped = false;

  constructor(private readonly opts: SourceOptions) {
    this.pollMs = opts.pollMs ?? 10_000;
    this.debounceMs = opts.debounceMs ?? 15;
    this.read = opts.read ?? readSnapshot;
    this.followEvents = opts.followEvents ?? followAgentEvents(opts.env);
  }

  /** Reads now, then on every change; `listener` gets each read. */
  start(listener: (snapshot: Snapshot, cause: RefreshCause) => void): void {
    this.listener = listener;
    this.watchRegistry();
    this.poll = setInterval(() => this.refresh('poll'), this.pollMs);
    if (this.opts.remote) {
      this.remotePoll = setInterval(() => this.readRemote(), this.opts.remote.everyMs);
      this.readRemote();
    }
    this.readNow('start');
  }

  /** Asks for a read soon (reads asked for within debounceMs are one). */
  refresh(cause: RefreshCause): void {
    if (this.stopped || this.pending) return;
    this.pending = setTimeout(() => {
      this.pending = null;
      this.readNow(cause);
    }, this.debounceMs);
  }

  /** How many `/events` streams are open (for tests and the footer). */
  get openStreams(): number {
    return this.streams.size;
  }

  /** Whether the registry directory is watched (false: only the streams and the poll). */
  get watching(): boolean {
    return this.watcher !== null;
  }

  stop(): void {
    this.stopped = true;
    if (this.poll) clearInterval(this.poll);
    if (this.remotePoll) clearInterval(this.remotePoll);
    if (this.pending) clearTimeout(this.pending);
    this.watcher?.close();
    this.watcher = null;
    for (const controller of this.streams.values()) controller.abort();
    this.streams.clear();
  }

  private readNow(cause: RefreshCause): void {
    if (this.stopped) return;
    let snapshot: Snapshot;
    try {
      snapshot = this.read(this.opts.env);
    } catch (err) {
      snapshot = { agents: [], problems: [{ file: registryDir(this.opts.env), reason: (err as Error).message }] };
    }
    // Only this host's agents get an `/events` stream: other hosts' are refreshed by the table's poll.
    this.followAll(snapshot.agents.map((r) => r.entry));
    this.listener?.(this.withRemote(snapshot), cause);
  }

  /** This host's snapshot with the other hosts' agents of the last table read (ids qualified as `synapse list` does). */
  private withRemote(snapshot: Snapshot): Snapshot {
    const feed = this.opts.remote;
    if (!feed) return snapshot;
    const local: HostedEntry[] = snapshot.agents.map((r) => ({ ...r.entry, host: feed.host, remote: false }));
    const read = this.remote;
    const remote = qualifyIds(local, read?.entries ?? []).map((entry): AgentRow => ({ entry, editing: null }));
    const rows = [...snapshot.agents.map((r, i) => ({ ...r, entry: local[i]! })), ...remote];
    // The locks are in the store, not in this machine's files: every row's EDITING_FILE comes from the last poll.
    const agents = read ? rows.map((r) => ({ ...r, editing: read.locks ? editingFrom(read.locks, r.entry as HostedEntry) : ('unreadable' as const) })) : rows;
    return { ...snapshot, agents, remoteError: read?.error ?? null };
  }

  private readRemote(): void {
    const feed = this.opts.remote;
    if (!feed || this.stopped || this.remoteInFlight) return;
    this.remoteInFlight = true;
    void feed
      .read()
      .catch((err: unknown): RemoteRead => ({ entries: [], error: (err as Error).message, locks: null }))
      .then((read) => {
        this.remoteInFlight = false;
        this.remote = read;
        this.readNow('remote');
      });
  }

  private watchRegistry(): void {
    const dir = registryDir(this.opts.env);
    try {
      fs.mkdirSync(dir, { recursive: true });
      this.watcher = fs.watch(dir, { persistent: false }, () => this.refresh('registry'));
      this.watcher.on('error', () => {
        // The directory went away (or the watch broke): the streams and the poll carry on.
        this.watcher?.close();
        this.watcher = null;
      });
    } catch {
      this.watcher = null; // no watch here (a full inotify table): the streams and the poll carry on
    }
  }

  /** Opens a stream for every agent of ours that has none; closes those of agents that are gone. */
  private followAll(entries: RegistryEntry[]): void {
    // The original's agents (no heartbeat) have no `/events`: the registry watch covers them.
    const ours = new Map(entries.filter((e) => e.heartbeat_at !== null).map((e) => [`${e.agent_id}:${e.pid}`, e]));
    for (const [key, controller] of this.streams)
      if (!ours.has(key)) {
        controller.abort();
        this.streams.delete(key);
      }
    const now = Date.now();
    for (const [key, entry] of ours) {
      if (this.streams.has(key) || this.noEvents.has(key) || now - (this.failedAt.get(key) ?? -Infinity) < this.pollMs) continue;
      this.follow(key, entry);
    }
  }

  private follow(key: string, entry: RegistryEntry): void {
    const controller = new AbortController();
    this.streams.set(key, controller);
    this.followEvents(entry, controller.signal, () => this.refresh('events'))
      .catch((err: unknown) => {
        if (err instanceof SynapseError && err.code === 'task_not_found') this.noEvents.add(key);
        this.failedAt.set(key, Date.now());
      })
      .finally(() => {
        if (this.streams.get(key) === controller) this.streams.delete(key);
      });
  }
}
