import fs from 'node:fs';
import path from 'node:path';
import { projectSynapseDir, synapseHome, type Env } from '../config/paths.js';
import { SynapseError } from '../errors.js';
import { naturalCompare } from '../text-order.js';

/** Where a saved agent lives: the project's `.synapse/agents/` (wins) or the user's `~/.synapse/agents/`. */
type SavedScope = 'project' | 'user';

/**
 * A saved agent definition (`synapse agents add`): a reusable name, profile, role, skill set and
 * port. One `<id>.agent` file of `key=value` lines, the original Python Synapse's format, so both
 * read each other's definitions (the original ignores `port`).
 */
export interface SavedAgent {
  id: string;
  name: string;
  profile: string;
  role: string | null;
  skill_set: string | null;
  port: number | null;
  scope: SavedScope;
  file: string;
}

/** The original's id format: two lowercase words, `silent-snake`. */
const ID_PATTERN = /^[a-z]+-[a-z]+$/;

function checkSavedId(id: string): void {
  if (!ID_PATTERN.test(id)) throw new SynapseError('invalid_input', `saved agent id "${id}" must be two lowercase words joined by a dash, e.g. silent-snake`);
}

function scopeDir(scope: SavedScope, cwd: string, env: Env): string {
  return scope === 'project' ? path.join(projectSynapseDir(cwd), 'agents') : path.join(synapseHome(env), 'agents');
}

/** `key=value` lines; blank lines, `#` comments and lines without `=` are skipped, as the original does. */
function parseFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    const eq = line.indexOf('=');
    if (!line || line.startsWith('#') || eq < 0) continue;
    out[line.slice(0, eq).trim()] = line.slice(eq + 1).trim();
  }
  return out;
}

function readOne(file: string, scope: SavedScope): SavedAgent | null {
  const d = parseFile(fs.readFileSync(file, 'utf8'));
  if (!d.id || !ID_PATTERN.test(d.id) || !d.name || !d.profile) return null;
  const port = d.port && /^\d+$/.test(d.port) ? Number(d.port) : null;
  return { id: d.id, name: d.name, profile: d.profile, role: d.role || null, skill_set: d.skill_set || null, port, scope, file };
}

/** Every saved agent, project over user for the same id, sorted by id; unreadable files are skipped. */
export function listSavedAgents(cwd: string, env: Env): SavedAgent[] {
  const byId = new Map<string, SavedAgent>();
  for (const scope of ['user', 'project'] as const) {
    const dir = scopeDir(scope, cwd, env);
    let names: string[];
    try {
      names = fs.readdirSync(dir).filter((n) => n.endsWith('.agent'));
    } catch {
      continue;
    }
    for (const name of names.sort()) {
      try {
        const agent = readOne(path.join(dir, name), scope);
        if (agent) byId.set(agent.id, agent);
      } catch {
        // unreadable: skipped, as the original does
      }
    }
  }
  return [...byId.values()].sort((a, b) => naturalCompare(a.id, b.id));
}

/** By id, then by name; null when none matches; an error when a name matches more than one. */
export function findSavedAgent(query: string, cwd: string, env: Env): SavedAgent | null {
  const all = listSavedAgents(cwd, env);
  const byId = all.find((a) => a.id === query);
  if (byId) return byId;
  const named = all.filter((a) => a.name === query);
  if (named.length > 1) throw new SynapseError('ambiguous_target', `saved agent name "${query}" matches ${named.map((a) => a.id).join(', ')}; use the id`);
  return named[0] ?? null;
}

export function getSavedAgent(query: string, cwd: string, env: Env): SavedAgent {
  const found = findSavedAgent(query, cwd, env);
  if (!found) throw new SynapseError('not_found', `no saved agent "${query}"; \`synapse agents list\` shows them, \`synapse agents add\` makes one`);
  return found;
}

export interface NewSavedAgent {
  id: string;
  name: string;
  profile: string;
  role?: string | undefined;
  skill_set?: string | undefined;
  port?: number | undefined;
  scope: SavedScope;
}

/** One line per field; a value may not span lines (the format has no escapes). */
function oneLine(field: string, value: string): string {
  if (/[\r\n]/.test(value)) throw new SynapseError('invalid_input', `${field} must be one line (use --role @file for a longer role)`);
  return value.trim();
}

/** Creates or replaces `<id>.agent` in the scope; a name another id already uses is refused. */
export function saveAgent(input: NewSavedAgent, cwd: string, env: Env): SavedAgent {
  checkSavedId(input.id);
  const name = oneLine('name', input.name);
  if (!name) throw new SynapseError('invalid_input', 'a saved agent needs a --name');
  const clash = listSavedAgents(cwd, env).find((a) => a.id !== input.id && a.name === name);
  if (clash) throw new SynapseError('conflict', `name "${name}" is already used by saved agent ${clash.id}`);
  const lines = [`id=${input.id}`, `name=${name}`, `profile=${oneLine('profile', input.profile)}`];
  if (input.role) lines.push(`role=${oneLine('role', input.role)}`);
  if (input.skill_set) lines.push(`skill_set=${oneLine('skill set', input.skill_set)}`);
  if (input.port !== undefined) lines.push(`port=${input.port}`);
  const dir = scopeDir(input.scope, cwd, env);
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${input.id}.agent`);
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  return readOne(file, input.scope)!;
}

/** Removes the definition `query` names (id, then name); returns it. */
export function deleteSavedAgent(query: string, cwd: string, env: Env): SavedAgent {
  const found = getSavedAgent(query, cwd, env);
  fs.rmSync(found.file, { force: true });
  return found;
}

const WORDS_A = ['brave', 'calm', 'eager', 'keen', 'quiet', 'sharp', 'steady', 'swift', 'wise', 'bold'];
const WORDS_B = ['builder', 'checker', 'falcon', 'owl', 'otter', 'fox', 'heron', 'lynx', 'raven', 'wolf'];

/** An id for a name: the name itself when it has the id's form, else a free `word-word`. */
export function suggestSavedId(name: string, cwd: string, env: Env): string {
  const slug = name.trim().toLowerCase().replace(/\s+/g, '-');
  const taken = new Set(listSavedAgents(cwd, env).map((a) => a.id));
  if (ID_PATTERN.test(slug) && !taken.has(slug)) return slug;
  for (const a of WORDS_A) for (const b of WORDS_B) if (!taken.has(`${a}-${b}`)) return `${a}-${b}`;
  return 'spare-agent';
}
