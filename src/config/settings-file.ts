import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SynapseError } from '../errors.js';
import { readJsonFile } from '../json-file.js';
import { checkEnvValue } from './env-setting.js';
import { envVarSpec } from './env-vars.js';
import { projectSynapseDir, synapseHome, type Env } from './paths.js';
import { checkJson, type JsonSchema } from './json-check.js';
import { SETTING_KEYS, settingKey } from './keys.js';
import type { SettingsFile } from './schema.js';

export const SCOPES = ['user', 'project', 'local'] as const;
export type Scope = (typeof SCOPES)[number];

/** The file of each scope: user `~/.synapse/settings.json`, project and local in `<project>/.synapse/`. */
export function settingsFile(scope: Scope, cwd: string, env: Env): string {
  if (scope === 'user') return path.join(synapseHome(env), 'settings.json');
  return path.join(projectSynapseDir(cwd), scope === 'project' ? 'settings.json' : 'settings.local.json');
}

/** Variables a project or local file may not set: they decide whether that very file is trusted. */
const USER_ONLY_VARS = new Set(['SYNAPSE_TRUST_PROJECT_HOOKS']);
/** Variables that override a key: set the key in the file instead. */
const KEY_VARS = new Map(SETTING_KEYS.filter((k) => k.env).map((k) => [k.env!, k.key]));

function bad(file: string, key: string, message: string): SynapseError {
  return new SynapseError('invalid_input', `settings file ${file}: ${key} ${message}; fix it (synapse config set) or remove the key`, { file, key });
}

function expectedFor(path: string[]): string {
  const key = path.join('.');
  return settingKey(key)?.type ?? (key.startsWith('instructions.') ? 'string' : 'an object of the keys in guides/settings.md');
}

let schema: JsonSchema | null = null;

/**
 * The settings-file schema as JSON, emitted from schema.ts by the build: `dist/config/` has it
 * beside this module; running from src/ (tests), the built copy is used.
 */
function fileSchema(): JsonSchema {
  if (schema) return schema;
  for (const rel of ['./schema.generated.json', '../../dist/config/schema.generated.json']) {
    const found = readJsonFile(fileURLToPath(new URL(rel, import.meta.url)), 'emitted schema file');
    if (found !== null) return (schema = (found as { SettingsFileSchema: JsonSchema }).SettingsFileSchema);
  }
  throw new SynapseError('internal', 'the settings schema (config/schema.generated.json) is missing: run npm run build');
}

/** Checks a parsed file against the schema and the variable table; errors name the file, key and expected type. */
function checkSettingsFile(file: string, scope: Scope, value: unknown): SettingsFile {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new SynapseError('corrupt_file', `settings file ${file} must hold a JSON object; fix it or remove it`, { file });
  const problem = checkJson(fileSchema(), value);
  if (problem) {
    const key = problem.path.join('.') || '(top level)';
    if (problem.kind === 'unknown') throw bad(file, key, 'is not a setting (see guides/settings.md or synapse config show)');
    throw bad(file, key, `must be ${expectedFor(problem.path)}`);
  }
  const data = value as SettingsFile;
  for (const [name, raw] of Object.entries(data.env ?? {})) {
    const spec = envVarSpec(name);
    if (KEY_VARS.has(name)) throw bad(file, `env.${name}`, `overrides ${KEY_VARS.get(name)}: set ${KEY_VARS.get(name)} in the file instead`);
    if (!spec) throw bad(file, `env.${name}`, 'is not a Synapse variable (see guides/settings.md)');
    if (spec.setBySynapse) throw bad(file, `env.${name}`, 'is set by Synapse itself (for the CLIs and hooks it runs), not in a settings file');
    if (scope !== 'user' && USER_ONLY_VARS.has(name))
      throw bad(file, `env.${name}`, 'may be set only in the user settings (~/.synapse/settings.json) or the environment');
    try {
      checkEnvValue(name, spec, String(raw));
    } catch (err) {
      throw bad(file, `env.${name}`, `is invalid: ${(err as Error).message}`);
    }
  }
  return data;
}

/** One scope's file, checked; null when it does not exist. */
export function readSettingsFile(scope: Scope, cwd: string, env: Env): { file: string; data: SettingsFile } | null {
  const file = settingsFile(scope, cwd, env);
  const value = readJsonFile(file, 'settings file');
  if (value === null) return null;
  return { file, data: checkSettingsFile(file, scope, value) };
}

/** One scope's file as it is, unchecked ({} when absent): `config set` repairs a bad file through it. */
export function readSettingsFileRaw(scope: Scope, cwd: string, env: Env): Record<string, unknown> {
  const file = settingsFile(scope, cwd, env);
  const value = readJsonFile(file, 'settings file');
  if (value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value))
    throw new SynapseError('corrupt_file', `settings file ${file} must hold a JSON object; fix it or remove it`, { file });
  return value as Record<string, unknown>;
}

/** Writes a scope's file (checked first, so a bad value never lands on disk). */
export function writeSettingsFile(scope: Scope, cwd: string, env: Env, data: SettingsFile): string {
  const file = settingsFile(scope, cwd, env);
  checkSettingsFile(file, scope, data);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(data, null, 2)}\n`);
  return file;
}
