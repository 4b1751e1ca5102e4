import fs from 'node:fs';
import { canvasStateFile, type Env } from '../../config/paths.js';
import { requestJson } from '../../a2a/http-json.js';
import { SynapseError, type ErrorCode } from '../../errors.js';
import { isPidAlive } from '../../registry/liveness.js';
import type { Card, CanvasStore, NewCard } from '../../store/canvas.js';

/**
 * How the CLI reaches the canvas: through the running server (`~/.synapse/canvas.json` names
 * it), so open dashboards show a new card at once; without one, straight into the database.
 */

export interface CanvasState {
  pid: number;
  port: number;
  url: string;
  project_dir: string;
  started_at: string;
}

/** The running server, or null (a state file whose process is gone is removed). */
export function runningCanvas(env: Env): CanvasState | null {
  const file = canvasStateFile(env);
  let state: CanvasState;
  try {
    state = JSON.parse(fs.readFileSync(file, 'utf8')) as CanvasState;
  } catch {
    return null; // not running (or an unreadable file, which names no server)
  }
  if (typeof state.pid !== 'number' || typeof state.url !== 'string' || !isPidAlive(state.pid)) {
    fs.rmSync(file, { force: true });
    return null;
  }
  return state;
}

/** A server's `{error: {code, message}}` as the SynapseError it was. */
function serverError(status: number, body: unknown): SynapseError {
  const e = (body as { error?: { code?: string; message?: string } } | null)?.error;
  return new SynapseError((e?.code as ErrorCode | undefined) ?? 'internal', e?.message ?? `the canvas server answered ${status}`);
}

/** Calls the server; null when it cannot be reached (it just stopped), so the caller falls back to the file. */
async function callServer<T>(state: CanvasState, method: string, path: string, body?: unknown): Promise<T | null> {
  const res = await requestJson<T>(`${state.url}${path}`, { method, ...(body !== undefined ? { body } : {}), timeoutMs: 5000 }).catch((err: unknown) => {
    if (err instanceof SynapseError && err.code === 'agent_unreachable') return null;
    throw err;
  });
  if (res === null) return null;
  if (res.status >= 400) throw serverError(res.status, res.body);
  return res.body;
}

async function withStore<T>(env: Env, fn: (store: CanvasStore) => T): Promise<T> {
  const { CanvasStore } = await import('../../store/canvas.js');
  const store = CanvasStore.open(env);
  try {
    return fn(store);
  } finally {
    store.close();
  }
}

export async function postCard(env: Env, card: NewCard): Promise<{ card: Card; created: boolean; via: 'server' | 'database' }> {
  const state = runningCanvas(env);
  if (state) {
    const r = await callServer<{ card: Card; created: boolean }>(state, 'POST', '/api/cards', card);
    if (r) return { ...r, via: 'server' };
  }
  return { ...(await withStore(env, (s) => s.post(card))), via: 'database' };
}

export async function deleteCard(env: Env, id: string): Promise<Card> {
  const state = runningCanvas(env);
  if (state) {
    const r = await callServer<Card>(state, 'DELETE', `/api/cards/${encodeURIComponent(id)}`);
    if (r) return r;
  }
  return withStore(env, (s) => s.delete(id));
}

export async function clearCards(env: Env, agent: string | undefined): Promise<number> {
  const state = runningCanvas(env);
  if (state) {
    const r = await callServer<{ deleted: number }>(state, 'POST', '/api/cards/clear', agent ? { agent } : {});
    if (r) return r.deleted;
  }
  return withStore(env, (s) => s.clear(agent ? { agent } : {}));
}

/** Reading needs no server: the file is shared (WAL). */
export async function listCards(env: Env, filter: Parameters<CanvasStore['list']>[0]): Promise<Card[]> {
  const { CanvasStore } = await import('../../store/canvas.js');
  if (!CanvasStore.exists(env)) return [];
  return withStore(env, (s) => s.list(filter));
}
