import type { AgentRow, Editing } from '../../../src/monitor/columns.js';
import type { RegistryEntry } from '../../../src/registry/entry.js';

/** A registry entry as an agent of ours writes it, with the fields a test cares about changed. */
export function entry(over: Partial<RegistryEntry> & Record<string, unknown> = {}): RegistryEntry {
  const port = typeof over.port === 'number' ? over.port : 8190;
  return {
    agent_id: `synapse-echo-${port}`,
    agent_type: 'echo',
    name: null,
    role: null,
    port,
    pid: 4242,
    pid_starttime: null,
    working_dir: '/home/ann/project',
    endpoint: `http://127.0.0.1:${port}`,
    status: 'READY',
    status_updated_at: '2026-01-01T00:00:00.000Z',
    current_task_preview: null,
    task_received_at: null,
    registered_at: '2026-01-01T00:00:00.000Z',
    heartbeat_at: '2026-01-01T00:00:00.000Z',
    log_file: null,
    headless: true,
    synapse_version: '0.1.0',
    ...over,
  };
}

export function row(over: Partial<RegistryEntry> & Record<string, unknown> = {}, editing: Editing = null): AgentRow {
  return { entry: entry(over), editing };
}
