import fs from 'node:fs';
import path from 'node:path';
import { registryDir, type Env } from '../config/paths.js';
import { isPidAlive } from '../registry/liveness.js';

/**
 * The few registry fields the shared store needs (names for tables, pid for lock ownership,
 * port and working_dir for memory notices). A deliberately tiny reader: the full registry
 * module belongs to the runtime, and the store must not depend on it. Each file is checked
 * field by field by hand rather than with a TypeBox schema because loading `typebox/value`
 * costs ~250 ms, which every short-lived `synapse tasks …` call would pay.
 */
export interface RegistryAgent {
  agent_id: string;
  name: string | null;
  pid: number | null;
  port: number | null;
  working_dir: string | null;
}

function parseEntry(raw: unknown): RegistryAgent | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const r = raw as Record<string, unknown>;
  if (typeof r.agent_id !== 'string' || r.agent_id.length === 0) return null;
  const int = (v: unknown) => (typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : null);
  return {
    agent_id: r.agent_id,
    name: typeof r.name === 'string' && r.name.length > 0 ? r.name : null,
    pid: int(r.pid),
    port: int(r.port) !== null && (r.port as number) <= 65_535 ? (r.port as number) : null,
    working_dir: typeof r.working_dir === 'string' && r.working_dir.length > 0 ? r.working_dir : null,
  };
}

/** All readable entries; a missing directory or a corrupt/half-written file is skipped. */
export function readRegistry(env: Env): RegistryAgent[] {
  const dir = registryDir(env);
  let names: string[];
  try {
    names = fs.readdirSync(dir).filter((n) => n.endsWith('.json'));
  } catch {
    return [];
  }
  const out: RegistryAgent[] = [];
  for (const n of names.sort()) {
    try {
      const entry = parseEntry(JSON.parse(fs.readFileSync(path.join(dir, n), 'utf8')));
      if (entry) out.push(entry);
    } catch {
      // Another process may be mid-write (temp file + rename) or the file is junk: skip it.
    }
  }
  return out;
}

/** agent_id → name, for showing names instead of ids. */
export function agentNameMap(env: Env): Map<string, string> {
  const map = new Map<string, string>();
  for (const a of readRegistry(env)) if (a.name) map.set(a.agent_id, a.name);
  return map;
}

/**
 * Finds the live registered agent a user meant by an id or a name: an exact agent_id first,
 * then a name held by exactly one live agent. Dead entries are ignored, so a stale file
 * cannot lend its pid to a lock.
 */
export function findLiveAgent(env: Env, idOrName: string): RegistryAgent | null {
  const live = readRegistry(env).filter((a) => a.pid !== null && isPidAlive(a.pid));
  const byId = live.find((a) => a.agent_id === idOrName);
  if (byId) return byId;
  const byName = live.filter((a) => a.name === idOrName);
  return byName.length === 1 ? byName[0]! : null;
}
