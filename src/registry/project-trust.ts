import fs from 'node:fs';
import path from 'node:path';
import { envSetting } from '../config/env-setting.js';
import { synapseHome, type Env } from '../config/paths.js';
import type { TrustCheck, TrustSubject } from '../config/settings.js';
import { SynapseError } from '../errors.js';
import { readJsonFile } from '../json-file.js';
import { projectKey } from './project.js';

/**
 * The user's decisions about projects' settings (`synapse trust`): per project (its git common
 * directory, registry/project.ts) and per content hash of the project's `env` and `hooks`
 * (config/settings.ts `TrustSubject`), in the user scope: `~/.synapse/trusted-projects.json`
 * (`$SYNAPSE_HOME`). A changed file has a new hash, so it is asked about again.
 */

export type TrustDecision = 'trusted' | 'denied';

export interface TrustRecord {
  hash: string;
  decision: TrustDecision;
  /** When it was decided (ISO). */
  at: string;
  /** What it covered (`env.SYNAPSE_X`, `hooks.on_idle`), for `synapse trust --show`. */
  keys: string[];
}

interface TrustFile {
  version: 1;
  projects: Record<string, { decisions: TrustRecord[] }>;
}

/** Decisions kept per project, newest first: enough for a few branches with different settings. */
const KEEP_PER_PROJECT = 20;

export function trustFilePath(env: Env): string {
  return path.join(synapseHome(env), 'trusted-projects.json');
}

function isRecord(v: unknown): v is TrustRecord {
  const r = v as Partial<TrustRecord> | null;
  return (
    typeof r === 'object' &&
    r !== null &&
    typeof r.hash === 'string' &&
    (r.decision === 'trusted' || r.decision === 'denied') &&
    typeof r.at === 'string' &&
    Array.isArray(r.keys) &&
    r.keys.every((k) => typeof k === 'string')
  );
}

/** The file, checked by hand (every command may read it: no schema library on this path). */
function readTrustFile(env: Env): TrustFile {
  const file = trustFilePath(env);
  const raw = readJsonFile(file, 'trust file') as Partial<TrustFile> | null;
  if (raw === null) return { version: 1, projects: {} };
  const projects = raw.projects;
  const ok =
    typeof raw === 'object' &&
    raw.version === 1 &&
    typeof projects === 'object' &&
    projects !== null &&
    !Array.isArray(projects) &&
    Object.values(projects).every((p) => Array.isArray((p as { decisions?: unknown } | null)?.decisions) && p.decisions.every(isRecord));
  if (!ok)
    throw new SynapseError('corrupt_file', `trust file ${file} is not what synapse trust writes; remove it (every project is then asked again)`, { file });
  return raw as TrustFile;
}

function writeTrustFile(env: Env, data: TrustFile): void {
  const file = trustFilePath(env);
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify(data, null, 2)}\n`, { mode: 0o600 });
  fs.renameSync(tmp, file);
}

/** The project's decisions, newest first. */
function projectDecisions(cwd: string, env: Env): TrustRecord[] {
  return readTrustFile(env).projects[projectKey(cwd)]?.decisions ?? [];
}

/** The decision about exactly this content of the project's settings, or null when none was made. */
export function decisionFor(subject: TrustSubject, env: Env): TrustRecord | null {
  return projectDecisions(subject.cwd, env).find((d) => d.hash === subject.hash) ?? null;
}

/** `SYNAPSE_TRUST_PROJECT_HOOKS=1` (environment or user settings): every project is trusted without asking. */
export function trustsEveryProject(userEnv: Env): boolean {
  return envSetting(userEnv, 'SYNAPSE_TRUST_PROJECT_HOOKS');
}

/**
 * The check config/settings.ts applies a project's env and hooks with: trusted when the user
 * trusted exactly this content, or trusts every project. The store is read from `env` (the process
 * environment: `$SYNAPSE_HOME`, else `~/.synapse`); an unreadable store trusts nothing (fail closed;
 * `synapse trust --show` says what is wrong with it).
 */
export function projectTrustCheck(env: Env): TrustCheck {
  return (subject, userEnv) => {
    if (trustsEveryProject(userEnv)) return true;
    try {
      return decisionFor(subject, env)?.decision === 'trusted';
    } catch {
      return false;
    }
  };
}

/** Records the user's decision about this content of the project's settings (replacing one about the same content). */
export function recordDecision(subject: TrustSubject, decision: TrustDecision, env: Env, now = new Date()): TrustRecord {
  const data = readTrustFile(env);
  const key = projectKey(subject.cwd);
  const record: TrustRecord = { hash: subject.hash, decision, at: now.toISOString(), keys: subject.keys };
  const others = (data.projects[key]?.decisions ?? []).filter((d) => d.hash !== subject.hash);
  data.projects[key] = { decisions: [record, ...others].slice(0, KEEP_PER_PROJECT) };
  writeTrustFile(env, data);
  return record;
}

/** Forgets every decision about the project (its settings are asked about again); how many there were. */
export function revokeDecisions(cwd: string, env: Env): number {
  const data = readTrustFile(env);
  const key = projectKey(cwd);
  const count = data.projects[key]?.decisions.length ?? 0;
  if (count === 0) return 0;
  delete data.projects[key];
  writeTrustFile(env, data);
  return count;
}
