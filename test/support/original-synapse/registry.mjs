// What the original Python Synapse 0.35 writes: its registry entries and its JSON (see
// ../original-synapse.mjs).

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** synapse/paths.py get_registry_dir */
export function registryDirOf(env) {
  return env.SYNAPSE_REGISTRY_DIR || path.join(env.HOME || os.homedir(), '.a2a', 'registry');
}

/** Python's json.dump (ensure_ascii=True, indent=2): what the original's registry files look like. */
export function pythonJson(value) {
  return JSON.stringify(value, null, 2).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Python's json.dumps with its default separators (', ', ': ') and ensure_ascii: the SSE `data:` lines. */
export function pythonDumps(value) {
  if (Array.isArray(value)) return `[${value.map(pythonDumps).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value)
      .map(([k, v]) => `${pythonJson(k)}: ${pythonDumps(v)}`)
      .join(', ')}}`;
  }
  return pythonJson(value);
}

/** time.time() */
export function pyTime() {
  return (performance.timeOrigin + performance.now()) / 1000;
}

/**
 * The registry entry as AgentRegistry.register writes it (same keys, same order, epoch-second
 * floats, no `name`/`role`/`skill_set` unless given, `endpoint` on localhost, a `uds_path`).
 */
export function originalEntry({ agentType, port, pid, workingDir, name, role, skillSet, status = 'PROCESSING', udsDir, now = pyTime() }) {
  const agentId = `synapse-${agentType}-${port}`;
  const data = {
    agent_id: agentId,
    agent_type: agentType,
    port,
    status,
    status_updated_at: now,
    last_status_change_at: now,
    registered_at: now,
    pid,
    working_dir: workingDir,
    endpoint: `http://localhost:${port}`,
    uds_path: path.join(udsDir || '/tmp/synapse-a2a', `${agentId}.sock`),
  };
  if (name) data.name = name;
  if (skillSet) data.skill_set = skillSet;
  if (role) data.role = role;
  data.renderer_available = true;
  return data;
}

/** _write_json_atomic / _atomic_update: mkstemp(prefix=".<id>.", suffix=".tmp") + fsync + os.replace. */
export function writeAtomic(dir, agentId, data) {
  const tmp = path.join(dir, `.${agentId}.${Math.random().toString(36).slice(2, 10)}.tmp`);
  const fd = fs.openSync(tmp, 'w', 0o600);
  fs.writeSync(fd, pythonJson(data));
  fs.fsyncSync(fd);
  fs.closeSync(fd);
  fs.renameSync(tmp, path.join(dir, `${agentId}.json`));
}
