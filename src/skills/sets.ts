import path from 'node:path';
import { Type } from 'typebox';
import { Value } from 'typebox/value';
import { projectSynapseDir, synapseHome, type Env } from '../config/paths.js';
import { SynapseError } from '../errors.js';
import { readJsonFile } from '../json-file.js';
import { findSkill, type SkillEntry } from './catalog.js';
import { PACKAGE_ROOT, type ScopeContext } from './scopes.js';

/** `skill_sets.json`: set name → what it is for and the skills it names. */
const SkillSetsSchema = Type.Record(
  Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,63}$' }),
  Type.Object(
    {
      description: Type.Optional(Type.String()),
      skills: Type.Array(Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,63}$' }), { minItems: 1 }),
    },
    { additionalProperties: true },
  ),
);

export interface SkillSet {
  name: string;
  description: string;
  skills: string[];
  /** The file that defined it (a later file replaces a set of the same name). */
  source: string;
}

/** The files sets come from, later ones winning: shipped defaults < user `~/.synapse` < project `.synapse`. */
function skillSetFiles(env: Env, cwd: string): string[] {
  return [
    path.join(PACKAGE_ROOT, 'templates', 'synapse', 'skill_sets.json'),
    path.join(synapseHome(env), 'skill_sets.json'),
    path.join(projectSynapseDir(cwd), 'skill_sets.json'),
  ];
}

function readSets(file: string): SkillSet[] {
  const data = readJsonFile(file, 'skill sets file');
  if (data === null) return [];
  const first = Value.Errors(SkillSetsSchema, data)[0];
  if (first) {
    const key = first.instancePath.replace(/^\//, '').replace(/\//g, '.') || '(top level)';
    throw new SynapseError(
      'corrupt_file',
      `skill sets file ${file}: key "${key}" ${first.message} (expected {"<set>": {"description": "…", "skills": ["<skill>", …]}})`,
      {
        file,
        key,
      },
    );
  }
  return Object.entries(data as Record<string, { description?: string; skills: string[] }>).map(([name, s]) => ({
    name,
    description: s.description ?? '',
    skills: s.skills,
    source: file,
  }));
}

/** Every skill set, by name. */
export function loadSkillSets(env: Env, cwd: string): Map<string, SkillSet> {
  const sets = new Map<string, SkillSet>();
  for (const file of skillSetFiles(env, cwd)) for (const set of readSets(file)) sets.set(set.name, set);
  return sets;
}

export function getSkillSet(name: string, env: Env, cwd: string): SkillSet {
  const sets = loadSkillSets(env, cwd);
  const set = sets.get(name);
  if (!set) throw new SynapseError('not_found', `no skill set "${name}"; the sets are: ${[...sets.keys()].join(', ') || '(none)'}`, { name });
  return set;
}

export interface SetMember {
  name: string;
  /** Where it would be deployed from (the first valid copy in lookup order); null = missing. */
  found: SkillEntry | null;
}

/** The set's skills, each with where it is found, or null when no scope has it. */
export function resolveSet(set: SkillSet, ctx: ScopeContext): SetMember[] {
  return set.skills.map((name) => ({ name, found: findSkill(name, ctx).find((s) => s.valid) ?? null }));
}
