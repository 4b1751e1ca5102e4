import fs from 'node:fs';
import path from 'node:path';
import { SynapseError } from '../../../errors.js';
import { sanitizePeerText } from '../../../runtime/sanitize.js';
import { addSkills } from '../../../skills/add.js';
import { listSkills, findSkill, type SkillEntry } from '../../../skills/catalog.js';
import { deploySkill } from '../../../skills/deploy.js';
import { checkSkillName } from '../../../skills/front-matter.js';
import { createSkill, deleteCopies, importSkill, moveSkill, scopeRoot, writableCopies } from '../../../skills/manage.js';
import { dirKindFor, parseScope, SCOPES, WRITABLE_SCOPES, type ScopeContext, type SkillScope } from '../../../skills/scopes.js';
import { printJson, println, type CommandIo } from '../../io.js';
import { preview, renderTable } from '../../table.js';

/*
 * `synapse skills …`: one exported function per subcommand, called by commander (register.ts)
 * with the parsed arguments and a CommandIo; the work is in src/skills/.
 */

export const ctxOf = (io: CommandIo): ScopeContext => ({ env: io.env, cwd: io.cwd });

/** `--agent claude,codex`: the CLI names, at least one. */
function parseAgents(value: string | undefined, fallback: string[] = ['claude']): string[] {
  const agents = (value ?? '')
    .split(',')
    .map((a) => a.trim())
    .filter(Boolean);
  return agents.length ? agents : fallback;
}

const readBy = (s: SkillEntry) => (s.kind === 'claude' ? 'claude' : s.kind === 'agents' ? 'codex,gemini,opencode,copilot' : '-');

function summary(s: SkillEntry) {
  return { name: s.name, scope: s.scope, description: s.description, path: s.path, read_by: readBy(s), valid: s.valid };
}

/** `synapse skills list [--scope S] [--json]`. */
export async function listSkillsCommand(flags: { scope?: string; json?: boolean }, io: CommandIo): Promise<void> {
  const scopes = flags.scope ? [parseScope(flags.scope)] : SCOPES;
  const skills = listSkills(ctxOf(io), scopes);
  if (flags.json) return printJson(io, skills.map(summary));
  if (skills.length === 0) return println(io, `no skills${flags.scope ? ` in scope ${flags.scope}` : ''}; create one with \`synapse skills create <name>\``);
  println(
    io,
    renderTable(
      ['NAME', 'SCOPE', 'READ BY', 'DESCRIPTION', 'PATH'],
      skills.map((s) => [
        s.name,
        s.scope,
        readBy(s),
        s.valid ? preview(sanitizePeerText(s.description), 50) : `INVALID ${preview(sanitizePeerText(s.description), 42)}`,
        s.path,
      ]),
    ),
  );
}

/** `synapse skills show <name>`: every copy, then the first one's SKILL.md and files. */
export async function showSkillCommand(name: string, flags: { json?: boolean }, io: CommandIo): Promise<void> {
  const copies = findSkill(checkSkillName(name), ctxOf(io));
  const first = copies[0];
  if (!first) throw new SynapseError('not_found', `no skill "${name}" in any scope; see \`synapse skills list\``, { name });
  const files = (fs.readdirSync(first.path, { recursive: true }) as string[]).filter((f) => fs.statSync(path.join(first.path, f)).isFile()).sort();
  // A skill may come from anywhere (add <git-url>): no escape sequence of it reaches the terminal.
  const text = sanitizePeerText(fs.readFileSync(path.join(first.path, 'SKILL.md'), 'utf8'));
  if (flags.json) return printJson(io, { ...summary(first), files, skill_md: text, copies: copies.map(summary) });
  println(
    io,
    [
      `${name} (${copies.length} ${copies.length === 1 ? 'copy' : 'copies'})`,
      ...copies.map((c) => `  ${c.scope.padEnd(8)} ${c.path}${c.valid ? '' : '  INVALID'}`),
      `files: ${files.join(', ')}`,
      '',
      text.trimEnd(),
    ].join('\n'),
  );
}

/** `synapse skills delete <name> [--scope S] [--force]`: asks first on a terminal; without one, wants --force. */
export async function deleteSkillCommand(name: string, flags: { scope?: string; force?: boolean; json?: boolean }, io: CommandIo): Promise<void> {
  const copies = writableCopies(name, ctxOf(io), flags.scope ? parseScope(flags.scope, WRITABLE_SCOPES) : undefined);
  if (!flags.force) {
    if (!io.isTerminal('stdin')) throw new SynapseError('usage', `delete ${copies.map((c) => c.path).join(', ')}? Not on a terminal: pass --force`);
    if (!(await io.confirm(`Delete ${copies.map((c) => c.path).join(', ')}?`))) return println(io, 'nothing deleted');
  }
  deleteCopies(copies);
  if (flags.json) return printJson(io, { deleted: copies.map((c) => c.path) });
  for (const c of copies) println(io, `deleted ${c.path}`);
}

/** `synapse skills move <name> --to S [--from S] [--agent A]`. */
export async function moveSkillCommand(name: string, flags: { to: string; from?: string; agent?: string; json?: boolean }, io: CommandIo): Promise<void> {
  const to = parseScope(flags.to, WRITABLE_SCOPES);
  const from = flags.from ? parseScope(flags.from, WRITABLE_SCOPES) : undefined;
  const moved = moveSkill(name, to, dirKindFor(parseAgents(flags.agent)[0]!), ctxOf(io), from);
  if (flags.json) return printJson(io, moved);
  println(io, `moved ${moved.from} -> ${moved.to}`);
}

/** `synapse skills import <name> [--from S]`: into the central store. */
export async function importSkillCommand(name: string, flags: { from?: string; json?: boolean }, io: CommandIo): Promise<void> {
  const done = importSkill(name, ctxOf(io), flags.from ? parseScope(flags.from) : undefined);
  if (flags.json) return printJson(io, done);
  println(io, `${done.changed ? 'imported' : 'already in the central store:'} ${done.from} -> ${done.to}`);
}

function deployScope(value: string | undefined): 'user' | 'project' {
  const scope = value ?? 'project';
  if (scope !== 'user' && scope !== 'project') throw new SynapseError('usage', `--scope for deploy is user or project, got "${scope}"`);
  return scope;
}

/** `synapse skills deploy <name> --agent claude,codex --scope user|project`. */
export async function deploySkillCommand(name: string, flags: { agent?: string; scope?: string; json?: boolean }, io: CommandIo): Promise<void> {
  const done = deploySkill(name, parseAgents(flags.agent), deployScope(flags.scope), ctxOf(io));
  if (flags.json) return printJson(io, done);
  for (const d of done) println(io, `${d.changed ? 'deployed' : 'up to date:'} ${d.name} -> ${d.to}`);
}

/** The folder `add` and `create` write to: the central store, or a CLI's folder in user/project scope. */
function writeRoot(flags: { scope?: string; agent?: string }, io: CommandIo): string {
  const scope: SkillScope = flags.scope ? parseScope(flags.scope, WRITABLE_SCOPES) : 'synapse';
  return scopeRoot(scope, dirKindFor(parseAgents(flags.agent)[0]!), ctxOf(io));
}

/** `synapse skills add <path|git-url> [--scope S] [--agent A]`. */
export async function addSkillCommand(source: string, flags: { scope?: string; agent?: string; json?: boolean }, io: CommandIo): Promise<void> {
  const done = addSkills(source, writeRoot(flags, io), io.cwd, io.env);
  if (flags.json) return printJson(io, done);
  for (const d of done) println(io, `added ${d.name} -> ${d.to}`);
}

/** `synapse skills create [name] [--scope S] [--agent A]`: asks for the name on a terminal. */
export async function createSkillCommand(name: string | undefined, flags: { scope?: string; agent?: string; json?: boolean }, io: CommandIo): Promise<void> {
  let skill = name;
  if (skill === undefined) {
    if (!io.isTerminal('stdin')) throw new SynapseError('usage', 'give the skill a name: synapse skills create <name>');
    const { input } = await import('@inquirer/prompts');
    skill = await input({
      message: 'Skill name (lowercase, hyphens):',
      validate: (v) => (/^[a-z0-9][a-z0-9-]{0,63}$/.test(v) ? true : 'lowercase letters, digits and hyphens'),
    });
  }
  const dir = createSkill(skill, writeRoot(flags, io));
  if (flags.json) return printJson(io, { name: skill, path: dir });
  println(io, `created ${path.join(dir, 'SKILL.md')}: write its description and steps`);
}
