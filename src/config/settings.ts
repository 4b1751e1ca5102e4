import type * as Crypto from 'node:crypto';
import { SynapseError } from '../errors.js';
import { requireCjs } from '../require-cjs.js';
import { ENV_VARS, envVarSpec } from './env-vars.js';
import type { Env } from './paths.js';
import { APPROVAL_MODES, FLOWS, LIST_COLUMNS, MONITOR_COLUMNS, TABLE_COLUMNS, type ApprovalMode, type Flow, type HookEvent, type ListColumn } from './keys.js';
import type { ModelPrice } from './pricing.js';
import type { SettingsFile } from './schema.js';
import { readSettingsFile, SCOPES, type Scope } from './settings-file.js';

/** Where a value came from: the default, a scope's file, or the environment. */
export interface Origin {
  source: 'default' | Scope | 'env';
  /** The file, for a scope. */
  file?: string;
}

interface Hook {
  command: string;
  scope: Scope;
  file: string;
}

export interface Settings {
  approvalMode: ApprovalMode;
  a2a: { flow: Flow };
  list: { columns: ListColumn[] };
  /** `default` and per-profile instructions (a .md file name or the text). */
  instructions: Record<string, string>;
  /** Per profile, the resume flags set in a settings file (`resume_flags`); a profile not named keeps its own. */
  resumeFlags: Record<string, string[]>;
  hooks: Partial<Record<HookEvent, Hook>>;
  /** The lease of a spawned agent (`synapse spawn`): null = none. */
  spawn: { keepIdle: string | null; keepTurns: number | null };
  /** Model prices set in a settings file (`pricing`), over the defaults of pricing.ts. */
  pricing: Record<string, ModelPrice>;
  /** The shared store (issue 22): `sqlite:` or a `postgres://` URL. */
  store: { url: string };
}

/** The `env` and `hooks` of one project-side file (project or local scope): what needs the user's trust. */
interface TrustedPart {
  scope: Exclude<Scope, 'user'>;
  file: string;
  env: Record<string, string | number | boolean>;
  hooks: Record<string, string>;
  /** `store.url`: where the board and the other shared data go (a foreign database would receive them). */
  store?: { url?: string };
}

/**
 * What a project's settings files ask for that needs the user's say before it takes effect:
 * environment (`env`) and commands (`hooks`) of `.synapse/settings.json` and
 * `.synapse/settings.local.json`. `hash` is a SHA-256 over exactly those parts (not the file
 * paths, so every worktree of a repository with the same settings shares one decision).
 */
export interface TrustSubject {
  /** The working directory the files were read from (the project is its git repository). */
  cwd: string;
  hash: string;
  parts: TrustedPart[];
  /** `env.SYNAPSE_X`, `hooks.on_idle` …: the keys, for messages. */
  keys: string[];
}

/**
 * Whether the user trusts a project's env and hooks: given the subject and the environment of the
 * user scope (the process's over the user file's `env`). Built by registry/project-trust.ts; without
 * one, nothing of a project's env and hooks is applied.
 */
export type TrustCheck = (subject: TrustSubject, userEnv: Env) => boolean;

export interface ResolvedSettings {
  settings: Settings;
  /** Every key with a value, flattened (`a2a.flow`, `env.SYNAPSE_HOME`), with its value and origin. */
  entries: Map<string, { value: unknown; origin: Origin }>;
  /** The effective environment: the files' `env` blocks (user < project < local), then the process's. */
  env: Env;
  /** The project's env and hooks, when its files have any, and whether they were applied. */
  projectTrust: { subject: TrustSubject; trusted: boolean } | null;
  /** Keys of the project's files left out because they are not trusted, with their values and files. */
  withheld: { key: string; value: unknown; origin: Origin }[];
}

const DEFAULTS: Settings = {
  approvalMode: 'auto',
  a2a: { flow: 'auto' },
  list: { columns: [...TABLE_COLUMNS] },
  instructions: { default: 'default.md', gemini: 'gemini.md' },
  resumeFlags: {},
  hooks: {},
  spawn: { keepIdle: null, keepTurns: null },
  pricing: {},
  store: { url: 'sqlite:' },
};

function fromVariable<T extends string>(env: Env, name: string, allowed: readonly T[]): T | undefined {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return undefined;
  if (!allowed.includes(raw as T)) throw new SynapseError('invalid_input', `${name} must be ${allowed.map((a) => `"${a}"`).join(' | ')}, got "${raw}"`);
  return raw as T;
}

function columnsFromVariable(env: Env): ListColumn[] | undefined {
  const raw = env.SYNAPSE_LIST_COLUMNS?.trim();
  if (raw === undefined || raw === '') return undefined;
  return raw.split(',').map((c) => fromVariable({ c: c.trim().toUpperCase() }, 'c', LIST_COLUMNS) ?? 'ID');
}

/** Sorted keys, so that the hash does not depend on the order a file lists them in. */
function sortedObject<T>(o: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** The env and hooks of the project-side files, or null when they have none. */
function trustSubject(cwd: string, files: { scope: Scope; file: string; data: SettingsFile }[]): TrustSubject | null {
  const parts: TrustedPart[] = [];
  for (const { scope, file, data } of files) {
    if (scope === 'user') continue;
    const env = sortedObject(data.env ?? {});
    const hooks = sortedObject((data.hooks ?? {}) as Record<string, string>);
    const store = data.store?.url !== undefined ? { url: data.store.url } : undefined;
    if (Object.keys(env).length > 0 || Object.keys(hooks).length > 0 || store) parts.push({ scope, file, env, hooks, ...(store ? { store } : {}) });
  }
  if (parts.length === 0) return null;
  // `store` only when set, so the hash of a project without it stays what it was.
  const canonical = JSON.stringify(parts.map(({ scope, env, hooks, store }) => ({ scope, env, hooks, ...(store ? { store } : {}) })));
  const keys = parts.flatMap((p) => [
    ...Object.keys(p.env).map((k) => `env.${k}`),
    ...Object.keys(p.hooks).map((k) => `hooks.${k}`),
    ...(p.store ? ['store.url'] : []),
  ]);
  // node:crypto only when a project has something to trust: every command reads the settings.
  const { createHash } = requireCjs('node:crypto') as typeof Crypto;
  return { cwd, hash: createHash('sha256').update(canonical).digest('hex'), parts, keys: [...new Set(keys)] };
}

/**
 * The one merge: defaults < user (`~/.synapse/settings.json`) < project (`.synapse/settings.json`)
 * < local (`.synapse/settings.local.json`) < environment variables, with where each value came
 * from. Every file is checked against the schema: a bad one is an `invalid_input` error naming
 * the file, the key and the expected type. `env` is the process environment.
 *
 * The `env` and `hooks` of the project and local files (a cloned repository's) apply only when
 * `trust` says the user trusts them (`synapse trust`); otherwise they are left out and listed in
 * `withheld`. Without `trust`, they never apply.
 */
export function resolveSettings(cwd: string, env: Env, trust?: TrustCheck): ResolvedSettings {
  const settings: Settings = structuredClone(DEFAULTS);
  const entries = new Map<string, { value: unknown; origin: Origin }>();
  const set = (key: string, value: unknown, origin: Origin) => entries.set(key, { value, origin });
  set('approvalMode', settings.approvalMode, { source: 'default' });
  set('a2a.flow', settings.a2a.flow, { source: 'default' });
  set('list.columns', settings.list.columns, { source: 'default' });
  set('store.url', settings.store.url, { source: 'default' });
  for (const [k, v] of Object.entries(settings.instructions)) set(`instructions.${k}`, v, { source: 'default' });
  for (const [name, spec] of Object.entries(ENV_VARS))
    if (spec.kind === 'number' && 'default' in spec) set(`env.${name}`, String(spec.default), { source: 'default' });
    else if (spec.kind === 'flag') set(`env.${name}`, spec.default ? 'true' : 'false', { source: 'default' });

  const files = SCOPES.flatMap((scope) => {
    const read = readSettingsFile(scope, cwd, env);
    return read ? [{ scope, ...read }] : [];
  });
  const fileEnv: Record<string, string> = {};
  const withheld: ResolvedSettings['withheld'] = [];
  let projectTrust: ResolvedSettings['projectTrust'] = null;
  for (const { scope, file, data } of files) {
    if (scope !== 'user' && projectTrust === null) {
      const subject = trustSubject(cwd, files);
      // The user scope is applied by now: its env (under the process's) may trust every project.
      if (subject) projectTrust = { subject, trusted: trust?.(subject, { ...fileEnv, ...env }) ?? false };
    }
    if (scope === 'user' || !projectTrust || projectTrust.trusted) {
      apply(settings, data, scope, file, fileEnv, set);
      continue;
    }
    const { env: asked, hooks, store, ...rest } = data;
    apply(settings, rest, scope, file, fileEnv, set);
    const origin: Origin = { source: scope, file };
    for (const [name, value] of Object.entries(asked ?? {})) withheld.push({ key: `env.${name}`, value: String(value), origin });
    for (const [event, command] of Object.entries(hooks ?? {})) withheld.push({ key: `hooks.${event}`, value: command, origin });
    if (store?.url !== undefined) withheld.push({ key: 'store.url', value: store.url, origin });
  }

  const approval = fromVariable(env, 'SYNAPSE_APPROVAL_MODE', APPROVAL_MODES);
  if (approval) set('approvalMode', (settings.approvalMode = approval), { source: 'env' });
  const flow = fromVariable(env, 'SYNAPSE_A2A_FLOW', FLOWS);
  if (flow) set('a2a.flow', (settings.a2a.flow = flow), { source: 'env' });
  const storeUrl = env.SYNAPSE_STORE_URL?.trim();
  if (storeUrl) set('store.url', (settings.store.url = storeUrl), { source: 'env' });
  const columns = columnsFromVariable(env);
  if (columns) set('list.columns', (settings.list.columns = columns), { source: 'env' });
  for (const [name, value] of Object.entries(env))
    if (value !== undefined && envVarSpec(name) && !envVarSpec(name)?.setBySynapse) set(`env.${name}`, value, { source: 'env' });

  return { settings, entries, env: { ...fileEnv, ...env }, projectTrust, withheld };
}

function apply(
  settings: Settings,
  data: SettingsFile,
  scope: Scope,
  file: string,
  fileEnv: Record<string, string>,
  set: (key: string, value: unknown, origin: Origin) => void,
): void {
  const origin: Origin = { source: scope, file };
  if (data.approvalMode) set('approvalMode', (settings.approvalMode = data.approvalMode), origin);
  if (data.a2a?.flow) set('a2a.flow', (settings.a2a.flow = data.a2a.flow), origin);
  if (data.store?.url !== undefined) set('store.url', (settings.store.url = data.store.url), origin);
  if (data.list?.columns) set('list.columns', (settings.list.columns = [...data.list.columns]), origin);
  if (data.spawn?.keepIdle !== undefined) set('spawn.keepIdle', (settings.spawn.keepIdle = data.spawn.keepIdle), origin);
  if (data.spawn?.keepTurns !== undefined) set('spawn.keepTurns', (settings.spawn.keepTurns = data.spawn.keepTurns), origin);
  for (const [profile, value] of Object.entries(data.instructions ?? {})) set(`instructions.${profile}`, (settings.instructions[profile] = value), origin);
  // A file's list for a profile replaces the list before it, as the original's merge does.
  for (const [profile, flags] of Object.entries({ ...data.resumeFlags, ...data.resume_flags }))
    set(`resume_flags.${profile}`, (settings.resumeFlags[profile] = [...flags]), origin);
  for (const [model, price] of Object.entries(data.pricing ?? {})) set(`pricing.${model}`, (settings.pricing[model] = { ...price }), origin);
  for (const [event, command] of Object.entries(data.hooks ?? {}) as [HookEvent, string][]) {
    if (command.trim() === '') delete settings.hooks[event];
    else settings.hooks[event] = { command, scope, file };
    set(`hooks.${event}`, command, origin);
  }
  for (const [name, value] of Object.entries(data.env ?? {})) set(`env.${name}`, (fileEnv[name] = String(value)), origin);
}

/** The merged settings (see `resolveSettings`; without `trust`, none of the project's env and hooks). */
export function loadSettings(cwd: string, env: Env, trust?: TrustCheck): Settings {
  return resolveSettings(cwd, env, trust).settings;
}

/**
 * The columns of `synapse list` in order: settings `list.columns` (a file or SYNAPSE_LIST_COLUMNS)
 * for both views; unset, the printed table keeps its columns and the live monitor shows its own.
 */
export function listColumns(cwd: string, env: Env, view: 'table' | 'monitor'): ListColumn[] {
  const { settings, entries } = resolveSettings(cwd, env);
  if (entries.get('list.columns')?.origin.source !== 'default') return settings.list.columns;
  return [...(view === 'table' ? TABLE_COLUMNS : MONITOR_COLUMNS)];
}

/**
 * The environment every module reads `SYNAPSE_*` from: the settings files' `env` blocks under the
 * process's (the project's only when `trust` says so).
 */
export function effectiveEnv(cwd: string, env: Env, trust?: TrustCheck): Env {
  return resolveSettings(cwd, env, trust).env;
}
