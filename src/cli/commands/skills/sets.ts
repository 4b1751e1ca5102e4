import { SynapseError } from '../../../errors.js';
import { findAgent } from '../../../registry/lookup.js';
import { copySkill, deployRoots } from '../../../skills/deploy.js';
import { loadSkillSets, getSkillSet, resolveSet } from '../../../skills/sets.js';
import { printJson, println, type CommandIo } from '../../io.js';
import { renderTable, preview } from '../../table.js';
import { sendCommand } from '../send.js';
import { ctxOf } from './skills.js';

/** `synapse skills set list`. */
export async function listSetsCommand(flags: { json?: boolean }, io: CommandIo): Promise<void> {
  const sets = [...loadSkillSets(io.env, io.cwd).values()];
  if (flags.json) return printJson(io, sets);
  if (sets.length === 0) return println(io, 'no skill sets');
  println(
    io,
    renderTable(
      ['SET', 'SKILLS', 'DESCRIPTION', 'FROM'],
      sets.map((s) => [s.name, s.skills.join(','), preview(s.description, 50), s.source]),
    ),
  );
}

/** `synapse skills set show <name>`: each skill with where it is found, or MISSING. */
export async function showSetCommand(name: string, flags: { json?: boolean }, io: CommandIo): Promise<void> {
  const set = getSkillSet(name, io.env, io.cwd);
  const members = resolveSet(set, ctxOf(io));
  const missing = members.filter((m) => !m.found).map((m) => m.name);
  if (flags.json)
    return printJson(io, {
      ...set,
      members: members.map((m) => ({ name: m.name, scope: m.found?.scope ?? null, path: m.found?.path ?? null, missing: !m.found })),
      missing,
    });
  println(
    io,
    [
      `${set.name}: ${set.description || '(no description)'}`,
      `from ${set.source}`,
      renderTable(
        ['SKILL', 'SCOPE', 'PATH'],
        members.map((m) => [m.name, m.found?.scope ?? 'MISSING', m.found?.path ?? 'not in any scope: add it with `synapse skills add <path|git-url>`']),
      ),
      ...(missing.length ? [`${missing.length} missing: ${missing.join(', ')}`] : []),
    ].join('\n'),
  );
}

export interface ApplyFlags {
  dryRun?: boolean;
  scope?: string;
  from?: string;
  json?: boolean;
}

/** What the running agent is told once its skills are in place. */
export function loadInstruction(set: string, root: string, skills: string[]): string {
  return (
    `[Synapse] The skill set "${set}" is deployed for you in ${root}: ${skills.join(', ')}. ` +
    `Load these skills now (read ${root}/<skill>/SKILL.md for each) and follow them from here on. No reply is needed.`
  );
}

/**
 * `synapse skills apply <target> <set>`: deploys the set's skills where the target's CLI reads
 * them (in the agent's working directory, or its user's home with --scope user), then tells the
 * running agent to load them with a Synapse message. A set that names a missing skill deploys nothing.
 */
export async function applySetCommand(target: string, setName: string, flags: ApplyFlags, io: CommandIo): Promise<void> {
  const { entry } = findAgent(target, io.env);
  const scope = flags.scope ?? 'project';
  if (scope !== 'user' && scope !== 'project') throw new SynapseError('usage', `--scope for apply is user or project, got "${scope}"`);
  const ctx = { env: io.env, cwd: entry.working_dir };
  const set = getSkillSet(setName, io.env, entry.working_dir);
  const members = resolveSet(set, ctx);
  const missing = members.filter((m) => !m.found).map((m) => m.name);
  if (missing.length)
    throw new SynapseError(
      'not_found',
      `skill set "${set.name}" names skills no scope has: ${missing.join(', ')}; add them with \`synapse skills add <path|git-url>\``,
      {
        missing,
      },
    );
  const roots = deployRoots([entry.agent_type], scope, ctx);
  const plan = roots.flatMap((root) => members.map((m) => ({ name: m.name, from: m.found!.path, to: `${root}/${m.name}` })));
  const who = entry.name ? `${entry.name} (${entry.agent_id})` : entry.agent_id;
  if (flags.dryRun) {
    if (flags.json)
      return printJson(io, { agent: entry.agent_id, set: set.name, dry_run: true, deploy: plan, message: loadInstruction(set.name, roots[0]!, set.skills) });
    return println(
      io,
      [`would deploy skill set ${set.name} for ${who}:`, ...plan.map((p) => `  ${p.name}: ${p.from} -> ${p.to}`), `and tell ${who} to load them`].join('\n'),
    );
  }
  const deployed = roots.flatMap((root) => members.map((m) => copySkill(m.found!, root)));
  let receipt = '';
  const capture: CommandIo = { ...io, out: (text) => void (receipt += text) };
  await sendCommand(
    entry.agent_id,
    loadInstruction(set.name, roots[0]!, set.skills),
    { silent: true, force: true, json: true, ...(flags.from ? { from: flags.from } : {}) },
    capture,
  );
  const sent = JSON.parse(receipt) as unknown;
  if (flags.json) return printJson(io, { agent: entry.agent_id, set: set.name, deployed, message: sent });
  println(
    io,
    [...deployed.map((d) => `${d.changed ? 'deployed' : 'up to date:'} ${d.name} -> ${d.to}`), `told ${who} to load skill set ${set.name}`].join('\n'),
  );
}
