import fs from 'node:fs';
import type { WebSocket } from 'ws';
import type { Env } from '../../config/paths.js';
import { registryDir } from '../../config/paths.js';
import { liveAgents } from '../../registry/lookup.js';
import type { RegistryEntry } from '../../registry/entry.js';
import { openBoard, type BoardStore } from '../../store/board-store.js';
import { storeTarget } from '../../store/store-url.js';
import { withNames, type ViewTask } from '../../store/board-view.js';
import { boardDbPath } from '../../store/settings.js';
import type { Card, CanvasStore } from '../../store/canvas.js';
import { acceptedPlanIds, syncPlan } from '../../store/canvas-plan.js';
import { naturalCompare } from '../../text-order.js';
import { iso } from '../../clock.js';

/** What the dashboard is told over its WebSocket. After a (re)connect it refetches everything. */
export type LiveEvent =
  | { type: 'hello'; server_time: string }
  | { type: 'card'; card: Card }
  | { type: 'card_deleted'; id: string }
  | { type: 'cards_changed' }
  | { type: 'agents'; agents: AgentView[] }
  | { type: 'board'; tasks: ViewTask[] };

export type AgentView = Pick<
  RegistryEntry,
  'agent_id' | 'agent_type' | 'name' | 'role' | 'port' | 'status' | 'current_task_preview' | 'task_received_at' | 'working_dir' | 'endpoint'
>;

export function agentViews(env: Env): AgentView[] {
  return liveAgents(env)
    .map((e) => ({
      agent_id: e.agent_id,
      agent_type: e.agent_type,
      name: e.name,
      role: e.role,
      port: e.port,
      status: e.status,
      current_task_preview: e.current_task_preview,
      task_received_at: e.task_received_at,
      working_dir: e.working_dir,
      endpoint: e.endpoint,
    }))
    .sort((a, b) => naturalCompare(a.agent_id, b.agent_id));
}

/**
 * The live side of the Canvas server: the connected dashboards, and three watchers that tell
 * them what changed elsewhere: the registry (agents' status), the project's task board (a
 * claim made by an agent or the CLI; plan cards follow their tasks), and the canvas file itself
 * when another process wrote it directly. Each watcher polls a cheap change counter (SQLite's
 * `data_version`, the board's change token, the registry's contents) and sends only when it moved.
 */
export class CanvasLive {
  private readonly clients = new Set<WebSocket>();
  private readonly timers: NodeJS.Timeout[] = [];
  private watcher: fs.FSWatcher | null = null;
  private board: Promise<BoardStore> | null = null;
  private boardVersion = '';
  private checkingBoard = false;
  private canvasVersion: number;
  private agentsJson = '';

  constructor(
    private readonly env: Env,
    readonly projectDir: string,
    private readonly canvas: CanvasStore,
    private readonly pollMs = 250,
  ) {
    this.canvasVersion = canvas.dataVersion();
  }

  start(): void {
    this.timers.push(setInterval(() => void this.checkBoard(), this.pollMs));
    this.timers.push(setInterval(() => this.checkCanvas(), this.pollMs));
    this.timers.push(setInterval(() => this.checkAgents(), 1000));
    for (const t of this.timers) t.unref();
    try {
      fs.mkdirSync(registryDir(this.env), { recursive: true });
      this.watcher = fs.watch(registryDir(this.env), () => this.checkAgents());
      this.watcher.on('error', () => undefined);
    } catch {
      // no watch on this file system: the 1 s poll still sees every change
    }
  }

  stop(): void {
    for (const t of this.timers.splice(0)) clearInterval(t);
    this.watcher?.close();
    for (const c of this.clients) c.close(1001, 'server stopping');
    void this.board?.then((b) => b.close()).catch(() => undefined);
    this.board = null;
  }

  add(socket: WebSocket): void {
    this.clients.add(socket);
    socket.on('close', () => this.clients.delete(socket));
    socket.on('error', () => this.clients.delete(socket));
    this.sendTo(socket, { type: 'hello', server_time: iso(Date.now()) });
  }

  get clientCount(): number {
    return this.clients.size;
  }

  broadcast(event: LiveEvent): void {
    for (const c of this.clients) this.sendTo(c, event);
  }

  /** The board with names, newest state (empty when the project has no board yet). */
  async boardTasks(): Promise<ViewTask[]> {
    const board = await this.openBoard();
    if (!board) return [];
    const names = new Map(agentViews(this.env).flatMap((a) => (a.name ? [[a.agent_id, a.name] as const] : [])));
    return (await board.list()).map((t) => withNames(t, names));
  }

  private sendTo(socket: WebSocket, event: LiveEvent): void {
    if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(event));
  }

  /** The board, opened once (a SQLite one only when its file exists: the dashboard never creates it). */
  private async openBoard(): Promise<BoardStore | null> {
    if (!this.board) {
      const target = storeTarget(this.projectDir, this.env);
      if (target.backend === 'sqlite' && !fs.existsSync(boardDbPath(this.projectDir))) return null;
      const opening = openBoard(this.projectDir, { env: this.env, target });
      this.board = opening;
      // A failed open is tried again on the next tick.
      opening.catch(() => {
        if (this.board === opening) this.board = null;
      });
    }
    return this.board;
  }

  private async checkBoard(): Promise<void> {
    if (this.checkingBoard) return;
    this.checkingBoard = true;
    try {
      const board = await this.openBoard();
      if (!board) return;
      const version = await board.changeToken();
      if (version === this.boardVersion) return;
      this.boardVersion = version;
      this.broadcast({ type: 'board', tasks: await this.boardTasks() });
      for (const id of await acceptedPlanIds(board)) {
        try {
          const { card, changed } = await syncPlan(this.canvas, board, id);
          if (changed.length > 0) this.broadcast({ type: 'card', card });
        } catch {
          // the plan card was deleted, or was never accepted here: nothing to move
        }
      }
    } catch {
      // a busy or broken board, an unreachable server: tried again on the next tick
    } finally {
      this.checkingBoard = false;
    }
  }

  private checkCanvas(): void {
    try {
      const version = this.canvas.dataVersion();
      if (version === this.canvasVersion) return;
      this.canvasVersion = version;
      this.broadcast({ type: 'cards_changed' });
    } catch {
      // busy: next tick
    }
  }

  private checkAgents(): void {
    try {
      const agents = agentViews(this.env);
      const json = JSON.stringify(agents);
      if (json === this.agentsJson) return;
      this.agentsJson = json;
      this.broadcast({ type: 'agents', agents });
    } catch {
      // an unreadable registry file: next tick
    }
  }
}
