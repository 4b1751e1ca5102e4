import { SynapseError } from '../../errors.js';
import { findProfile } from '../../profiles/index.js';
import { deleteSavedAgent, getSavedAgent, listSavedAgents, saveAgent, type SavedAgent } from '../../team/saved-agents.js';
import { printJson, println, type CommandIo } from '../io.js';
import { preview, renderTable } from '../table.js';

/** `synapse agents list`: the saved agent definitions, project over user. */
export function listSavedCommand(flags: { json?: boolean }, io: CommandIo): void {
  const all = listSavedAgents(io.cwd, io.env);
  if (flags.json) return printJson(io, all);
  if (all.length === 0) return println(io, 'No saved agents. Save one with `synapse agents add <id> --name N --profile P`.');
  println(
    io,
    renderTable(
      ['ID', 'NAME', 'PROFILE', 'ROLE', 'SKILL_SET', 'PORT', 'SCOPE'],
      all.map((a) => [a.id, a.name, a.profile, preview(a.role, 32), a.skill_set ?? '-', a.port === null ? '-' : String(a.port), a.scope]),
    ),
  );
}

function describe(a: SavedAgent): string {
  return [
    `${a.id} (${a.name})`,
    `  profile    ${a.profile}`,
    `  role       ${a.role ?? '-'}`,
    `  skill set  ${a.skill_set ?? '-'}`,
    `  port       ${a.port ?? '-'}`,
    `  scope      ${a.scope} (${a.file})`,
  ].join('\n');
}

/** `synapse agents show <id|name>`. */
export function showSavedCommand(query: string, flags: { json?: boolean }, io: CommandIo): void {
  const a = getSavedAgent(query, io.cwd, io.env);
  if (flags.json) printJson(io, a);
  else println(io, describe(a));
}

export interface AddSavedFlags {
  name: string;
  profile: string;
  role?: string;
  skillSet?: string;
  port?: number;
  scope?: string;
  json?: boolean;
}

/** `synapse agents add <id> --name N --profile P`: creates or replaces the definition. */
export function addSavedCommand(id: string, flags: AddSavedFlags, io: CommandIo): void {
  const profile = findProfile(flags.profile);
  if (!profile) throw new SynapseError('unknown_profile', `no profile "${flags.profile}"; \`synapse profiles\` lists them`);
  const scope = flags.scope ?? 'project';
  if (scope !== 'project' && scope !== 'user') throw new SynapseError('usage', `--scope is project or user, got "${scope}"`);
  const saved = saveAgent({ id, name: flags.name, profile: profile.id, role: flags.role, skill_set: flags.skillSet, port: flags.port, scope }, io.cwd, io.env);
  if (flags.json) printJson(io, saved);
  else println(io, `saved ${saved.id} (${saved.name}) in ${saved.file}`);
}

/** `synapse agents delete <id|name>`. */
export function deleteSavedCommand(query: string, flags: { json?: boolean }, io: CommandIo): void {
  const gone = deleteSavedAgent(query, io.cwd, io.env);
  if (flags.json) printJson(io, gone);
  else println(io, `deleted ${gone.id} (${gone.file})`);
}
