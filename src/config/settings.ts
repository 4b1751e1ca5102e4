import { SynapseError } from '../errors.js';
import { readJsonFile } from '../json-file.js';
import path from 'node:path';
import { projectSynapseDir, synapseHome, type Env } from './paths.js';

type Flow = 'auto' | 'roundtrip' | 'oneway';

export interface Settings {
  a2a: { flow: Flow };
}

const DEFAULTS: Settings = { a2a: { flow: 'auto' } };
const FLOWS = new Set<Flow>(['auto', 'roundtrip', 'oneway']);

/** A settings file's object; null when the file is absent. A corrupt file is an error naming it. */
function readJson(file: string): Record<string, unknown> | null {
  const v = readJsonFile(file, 'settings file');
  if (v === null) return null;
  if (typeof v !== 'object' || Array.isArray(v))
    throw new SynapseError('corrupt_file', `settings file ${file} must hold a JSON object; fix it or remove it`, { file });
  return v as Record<string, unknown>;
}

/**
 * Settings in three scopes, later ones win: user (`~/.synapse/settings.json`), project
 * (`<project>/.synapse/settings.json`), local (`<project>/.synapse/settings.local.json`).
 * Unknown keys are ignored; a bad value keeps the default.
 */
export function loadSettings(cwd: string, env: Env): Settings {
  const settings: Settings = structuredClone(DEFAULTS);
  const files = [
    path.join(synapseHome(env), 'settings.json'),
    path.join(projectSynapseDir(cwd), 'settings.json'),
    path.join(projectSynapseDir(cwd), 'settings.local.json'),
  ];
  for (const file of files) {
    const a2a = readJson(file)?.a2a;
    if (typeof a2a === 'object' && a2a !== null) {
      const flow = (a2a as Record<string, unknown>).flow;
      if (typeof flow === 'string' && FLOWS.has(flow as Flow)) settings.a2a.flow = flow as Flow;
    }
  }
  return settings;
}
