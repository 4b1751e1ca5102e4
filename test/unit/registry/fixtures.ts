import { spawnSync } from 'node:child_process';
import type { RegistryEntry } from '../../../src/registry/entry.js';

/** A well-formed registry entry for `synapse-<type>-<port>`; fields can be overridden. */
export function entry(type: string, port: number, name: string | null = null, over: Partial<RegistryEntry> = {}): RegistryEntry {
  const now = new Date().toISOString();
  return {
    agent_id: `synapse-${type}-${port}`,
    agent_type: type,
    name,
    role: null,
    port,
    pid: 1,
    pid_starttime: null,
    working_dir: '/w',
    endpoint: `http://127.0.0.1:${port}`,
    status: 'READY',
    status_updated_at: now,
    current_task_preview: null,
    task_received_at: null,
    registered_at: now,
    heartbeat_at: now,
    log_file: null,
    headless: true,
    synapse_version: 't',
    ...over,
  };
}

/** A pid that belongs to no process: that of a child that has exited and been reaped. */
export function deadPid(): number {
  const { pid } = spawnSync('true');
  if (!pid) throw new Error('could not spawn `true`');
  return pid;
}
