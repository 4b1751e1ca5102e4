import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach } from 'vitest';

/**
 * A temp project with its own HOME and registry, for the shared-store commands: spawned
 * (test/integration/team-store) and in-process (test/integration/cli) alike.
 */

export interface Project {
  /** The project dir (cwd of every command), already realpath'd. */
  dir: string;
  home: string;
  registry: string;
  env: NodeJS.ProcessEnv;
  cleanup: () => void;
}

/** A temp project with its own HOME and registry; nothing touches the real ~/.a2a or ~/.synapse. */
export function tempProject(extraEnv: NodeJS.ProcessEnv = {}): Project {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'synapse-store-')));
  const dir = path.join(root, 'project');
  const home = path.join(root, 'home');
  const registry = path.join(home, '.a2a', 'registry');
  fs.mkdirSync(dir, { recursive: true });
  fs.mkdirSync(registry, { recursive: true });
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, SYNAPSE_REGISTRY_DIR: registry, SYNAPSE_HOME: path.join(home, '.synapse'), ...extraEnv };
  for (const k of [
    'SYNAPSE_AGENT_ID',
    'SYNAPSE_AGENT_NAME',
    'SYNAPSE_PROJECT_DIR',
    'SYNAPSE_FILE_SAFETY_DB_PATH',
    'SYNAPSE_FILE_SAFETY_ENABLED',
    'SYNAPSE_SHARED_MEMORY_ENABLED',
  ]) {
    if (!(k in extraEnv)) delete env[k];
  }
  return { dir, home, registry, env, cleanup: () => fs.rmSync(root, { recursive: true, force: true }) };
}

/** Polls until `fn` returns a truthy value, or fails at the deadline. */
export async function waitFor<T>(fn: () => T | Promise<T>, timeoutMs = 10_000, what = 'condition'): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last instanceof Error ? `: ${last.message}` : ''}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Resolves when the child has exited and been reaped (so its pid is really gone). */
export function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((r) => child.once('exit', () => r()));
}

/** Kills what a test started, even when the test failed half-way. */
async function killAll(children: ChildProcess[]): Promise<void> {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await Promise.all(children.map(exited));
  children.length = 0;
}

/** Writes a registry entry the way the runtime does (temp file + rename). */
export function registerAgent(
  project: Project,
  entry: { agent_id: string; name: string | null; pid: number; port: number; working_dir: string; heartbeat_at?: string },
): void {
  const full = {
    agent_type: entry.agent_id.split('-')[1] ?? 'echo',
    role: null,
    endpoint: `http://127.0.0.1:${entry.port}`,
    status: 'READY',
    status_updated_at: new Date().toISOString(),
    current_task_preview: null,
    task_received_at: null,
    registered_at: new Date().toISOString(),
    heartbeat_at: new Date().toISOString(),
    ...entry,
  };
  const file = path.join(project.registry, `${entry.agent_id}.json`);
  fs.writeFileSync(`${file}.tmp`, JSON.stringify(full));
  fs.renameSync(`${file}.tmp`, file);
}

/**
 * A fresh temp project for every test of the file, removed after it together with the child
 * processes the test pushed to `children` (killed even when the test failed half-way).
 */
export function useTempProject(): { readonly project: Project; children: ChildProcess[] } {
  let current: Project | null = null;
  const state = {
    get project(): Project {
      if (!current) throw new Error('no temp project outside a test');
      return current;
    },
    children: [] as ChildProcess[],
  };
  beforeEach(() => {
    current = tempProject();
  });
  afterEach(async () => {
    await killAll(state.children);
    current?.cleanup();
    current = null;
  });
  return state;
}
