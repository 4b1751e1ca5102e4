import fs from 'node:fs';
import path from 'node:path';
import { exitRecordDir, type Env } from '../config/paths.js';
import { readDirNames, readJsonFile } from '../json-file.js';

/**
 * Why an agent went away: its CLI exited by itself (a stop or kill leaves no record). Written by
 * the agent as it shuts down, to `~/.synapse/exited/<agent_id>.json`; the newest exit of an agent
 * id replaces the one before.
 */
export interface ExitRecord {
  agent_id: string;
  name: string | null;
  agent_type: string;
  port: number;
  /** The synapse process (the registry entry's pid). */
  pid: number;
  working_dir: string;
  exited_at: string;
  /** The CLI's exit code, and the signal that ended it (null: none). */
  exit_code: number;
  signal: number | null;
  /** The CLI exited before the agent took messages (before its start-up instruction was done). */
  during_startup: boolean;
  /** The last non-blank stretch of its screen, where the reason almost always is. */
  last_lines: string[];
  log_file: string | null;
}

/** How long `synapse list` mentions an exit, and how long a record is kept at all. */
export const RECENT_EXIT_MS = 10 * 60_000;
const KEEP_MS = 24 * 60 * 60_000;

const isInt = (v: unknown): v is number => Number.isInteger(v);

/** The one reader of a record file: anything that is not a record is skipped (it explains nothing). */
function checkRecord(raw: unknown): ExitRecord | null {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return null;
  const r = raw as Record<string, unknown>;
  const ok =
    typeof r.agent_id === 'string' &&
    typeof r.agent_type === 'string' &&
    isInt(r.port) &&
    isInt(r.pid) &&
    typeof r.exited_at === 'string' &&
    isInt(r.exit_code) &&
    Array.isArray(r.last_lines) &&
    r.last_lines.every((l) => typeof l === 'string');
  if (!ok) return null;
  return {
    agent_id: r.agent_id as string,
    name: typeof r.name === 'string' ? r.name : null,
    agent_type: r.agent_type as string,
    port: r.port as number,
    pid: r.pid as number,
    working_dir: typeof r.working_dir === 'string' ? r.working_dir : '',
    exited_at: r.exited_at as string,
    exit_code: r.exit_code as number,
    signal: isInt(r.signal) ? r.signal : null,
    during_startup: r.during_startup === true,
    last_lines: r.last_lines as string[],
    log_file: typeof r.log_file === 'string' ? r.log_file : null,
  };
}

/** Writes the record (temp file + rename) and drops records older than a day. */
export function writeExitRecord(record: ExitRecord, env: Env): void {
  const dir = exitRecordDir(env);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = path.join(dir, `${record.agent_id}.json`);
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
  fs.renameSync(tmp, file);
  const now = Date.parse(record.exited_at);
  for (const r of readExitRecords(env)) if (now - Date.parse(r.exited_at) > KEEP_MS) fs.rmSync(path.join(dir, `${r.agent_id}.json`), { force: true });
}

/** Every record, newest first. */
export function readExitRecords(env: Env): ExitRecord[] {
  const dir = exitRecordDir(env);
  const out: ExitRecord[] = [];
  for (const name of readDirNames(dir)) {
    if (!name.endsWith('.json')) continue;
    let raw: unknown;
    try {
      raw = readJsonFile(path.join(dir, name), 'exit record');
    } catch {
      continue; // a record half-written by a crash explains nothing; the next exit replaces it
    }
    const rec = checkRecord(raw);
    if (rec) out.push(rec);
  }
  return out.sort((a, b) => Date.parse(b.exited_at) - Date.parse(a.exited_at));
}

/** The record of the synapse process `pid` (`synapse start` waits on that process). */
export function exitRecordOfPid(pid: number, env: Env): ExitRecord | null {
  return readExitRecords(env).find((r) => r.pid === pid) ?? null;
}

/** The newest record that `target` names: its agent id, its name, or `<type>-<port>`. */
export function findExitRecord(target: string, env: Env): ExitRecord | null {
  return readExitRecords(env).find((r) => r.agent_id === target || r.name === target || `${r.agent_type}-${r.port}` === target) ?? null;
}

/** One line for people: `exit code 42 during start-up` / `exit code 0`, with the signal if any. */
export function describeExit(r: Pick<ExitRecord, 'exit_code' | 'signal' | 'during_startup'>): string {
  return `exit code ${r.exit_code}${r.signal ? `, signal ${r.signal}` : ''}${r.during_startup ? ' during start-up' : ''}`;
}
