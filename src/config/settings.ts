import { SynapseError } from '../errors.js';
import { ENV_VARS, envVarSpec } from './env-vars.js';
import type { Env } from './paths.js';
import { APPROVAL_MODES, FLOWS, LIST_COLUMNS, MONITOR_COLUMNS, TABLE_COLUMNS, type ApprovalMode, type Flow, type HookEvent, type ListColumn } from './keys.js';
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
}

export interface ResolvedSettings {
  settings: Settings;
  /** Every key with a value, flattened (`a2a.flow`, `env.SYNAPSE_HOME`), with its value and origin. */
  entries: Map<string, { value: unknown; origin: Origin }>;
  /** The effective environment: the files' `env` blocks (user < project < local), then the process's. */
  env: Env;
}

const DEFAULTS: Settings = {
  approvalMode: 'auto',
  a2a: { flow: 'auto' },
  list: { columns: [...TABLE_COLUMNS] },
  instructions: { default: 'default.md', gemini: 'gemini.md' },
  resumeFlags: {},
  hooks: {},
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

/**
 * The one merge: defaults < user (`~/.synapse/settings.json`) < project (`.synapse/settings.json`)
 * < local (`.synapse/settings.local.json`) < environment variables, with where each value came
 * from. Every file is checked against the schema: a bad one is an `invalid_input` error naming
 * the file, the key and the expected type. `env` is the process environment.
 */
export function resolveSettings(cwd: string, env: Env): ResolvedSettings {
  const settings: Settings = structuredClone(DEFAULTS);
  const entries = new Map<string, { value: unknown; origin: Origin }>();
  const set = (key: string, value: unknown, origin: Origin) => entries.set(key, { value, origin });
  set('approvalMode', settings.approvalMode, { source: 'default' });
  set('a2a.flow', settings.a2a.flow, { source: 'default' });
  set('list.columns', settings.list.columns, { source: 'default' });
  for (const [k, v] of Object.entries(settings.instructions)) set(`instructions.${k}`, v, { source: 'default' });
  for (const [name, spec] of Object.entries(ENV_VARS))
    if (spec.kind === 'number' && 'default' in spec) set(`env.${name}`, String(spec.default), { source: 'default' });
    else if (spec.kind === 'flag') set(`env.${name}`, spec.default ? 'true' : 'false', { source: 'default' });

  const fileEnv: Record<string, string> = {};
  for (const scope of SCOPES) {
    const read = readSettingsFile(scope, cwd, env);
    if (!read) continue;
    apply(settings, read.data, scope, read.file, fileEnv, set);
  }

  const approval = fromVariable(env, 'SYNAPSE_APPROVAL_MODE', APPROVAL_MODES);
  if (approval) set('approvalMode', (settings.approvalMode = approval), { source: 'env' });
  const flow = fromVariable(env, 'SYNAPSE_A2A_FLOW', FLOWS);
  if (flow) set('a2a.flow', (settings.a2a.flow = flow), { source: 'env' });
  const columns = columnsFromVariable(env);
  if (columns) set('list.columns', (settings.list.columns = columns), { source: 'env' });
  for (const [name, value] of Object.entries(env))
    if (value !== undefined && envVarSpec(name) && !envVarSpec(name)?.setBySynapse) set(`env.${name}`, value, { source: 'env' });

  return { settings, entries, env: { ...fileEnv, ...env } };
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
  if (data.list?.columns) set('list.columns', (settings.list.columns = [...data.list.columns]), origin);
  for (const [profile, value] of Object.entries(data.instructions ?? {})) set(`instructions.${profile}`, (settings.instructions[profile] = value), origin);
  // A file's list for a profile replaces the list before it, as the original's merge does.
  for (const [profile, flags] of Object.entries({ ...data.resumeFlags, ...data.resume_flags }))
    set(`resume_flags.${profile}`, (settings.resumeFlags[profile] = [...flags]), origin);
  for (const [event, command] of Object.entries(data.hooks ?? {}) as [HookEvent, string][]) {
    if (command.trim() === '') delete settings.hooks[event];
    else settings.hooks[event] = { command, scope, file };
    set(`hooks.${event}`, command, origin);
  }
  for (const [name, value] of Object.entries(data.env ?? {})) set(`env.${name}`, (fileEnv[name] = String(value)), origin);
}

/** The merged settings (see `resolveSettings`). */
export function loadSettings(cwd: string, env: Env): Settings {
  return resolveSettings(cwd, env).settings;
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

/** The environment every module reads `SYNAPSE_*` from: the settings files' `env` blocks under the process's. */
export function effectiveEnv(cwd: string, env: Env): Env {
  return resolveSettings(cwd, env).env;
}
