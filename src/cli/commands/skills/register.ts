import type { Command } from 'commander';
import { processIo } from '../../io.js';
import type * as SetsCli from './sets.js';
import type { ApplyFlags } from './sets.js';
import type * as SkillsCli from './skills.js';

// The commands' modules, and the YAML parser and schemas under them, load only when one runs:
// every other `synapse` command declares these without paying for them.
const skillsCli = (): Promise<typeof SkillsCli> => import('./skills.js');
const setsCli = (): Promise<typeof SetsCli> => import('./sets.js');

const HELP = `
Scopes (where skills live):
  synapse   the central store ~/.synapse/skills (or SYNAPSE_SKILLS_DIR)
  user      ~/.claude/skills (Claude Code) and ~/.agents/skills (Codex, Gemini, OpenCode, Copilot)
  project   ./.claude/skills and ./.agents/skills
  plugin    ./plugins/*/skills (read-only)
  builtin   the skills shipped with Synapse (read-only)
A skill is a folder with a SKILL.md whose front matter has name (= folder name) and description.
Every agent gets synapse-a2a in its CLI's user folder at start (unless you put your own there).

Examples:
  synapse skills                                    pick and manage skills interactively (on a terminal)
  synapse skills list --scope project
  synapse skills show synapse-a2a
  synapse skills deploy code-review --agent claude,codex --scope project
  synapse skills add https://github.com/acme/skills.git
  synapse skills create release-notes --scope project
  synapse skills set show reviewer
  synapse skills apply bob reviewer --dry-run`;

type Flags = Record<string, string | boolean | undefined>;

/** `synapse skills …`: declarations only; skills.ts and sets.ts do the work. */
export function registerSkillCommands(program: Command): void {
  const skills = program
    .command('skills')
    .description('Agent skills across scopes: list, show, deploy where a CLI reads them, add, create, skill sets')
    .addHelpText('after', HELP)
    .action(async () => {
      const io = processIo();
      if (!io.isTerminal('stdin') || !io.isTerminal('stdout')) return (await skillsCli()).listSkillsCommand({}, io);
      const { interactiveSkills } = await import('./interactive.js');
      return interactiveSkills(io);
    });

  registerScopeCommands(skills);
  registerCopyCommands(skills);
  registerSetCommands(skills);
}

/** list, show, delete, move, import. */
function registerScopeCommands(skills: Command): void {
  skills
    .command('list')
    .description('List skills in every scope (or one)')
    .option('--scope <scope>', 'synapse, user, project, plugin or builtin')
    .option('--json', 'print JSON')
    .addHelpText('after', '\nExample:\n  synapse skills list --scope user --json')
    .action(async (flags: Flags) => (await skillsCli()).listSkillsCommand(flags, processIo()));

  skills
    .command('show')
    .description('Show where a skill is, its files and its SKILL.md')
    .argument('<name>')
    .option('--json', 'print JSON')
    .addHelpText('after', '\nExample:\n  synapse skills show synapse-a2a')
    .action(async (name: string, flags: Flags) => (await skillsCli()).showSkillCommand(name, flags, processIo()));

  skills
    .command('delete')
    .description('Delete a skill from the writable scopes (asks first; --force without a terminal)')
    .argument('<name>')
    .option('--scope <scope>', 'only this scope: synapse, user or project')
    .option('--force', 'do not ask')
    .option('--json', 'print JSON')
    .addHelpText('after', '\nExample:\n  synapse skills delete old-skill --scope project --force')
    .action(async (name: string, flags: Flags) => (await skillsCli()).deleteSkillCommand(name, flags, processIo()));

  skills
    .command('move')
    .description('Move a skill to another writable scope')
    .argument('<name>')
    .requiredOption('--to <scope>', 'synapse, user or project')
    .option('--from <scope>', 'when the skill is in several scopes: which copy')
    .option('--agent <cli>', 'with --to user|project: the CLI whose folder to use (claude = .claude/skills, others = .agents/skills)', 'claude')
    .option('--json', 'print JSON')
    .addHelpText('after', '\nExample:\n  synapse skills move code-review --to user --agent codex')
    .action(async (name: string, flags: Flags & { to: string }) => (await skillsCli()).moveSkillCommand(name, flags, processIo()));

  skills
    .command('import')
    .description('Copy a skill from another scope into the central store (~/.synapse/skills)')
    .argument('<name>')
    .option('--from <scope>', 'take it from this scope (default: the first that has it)')
    .option('--json', 'print JSON')
    .addHelpText('after', '\nExample:\n  synapse skills import code-review --from project')
    .action(async (name: string, flags: Flags) => (await skillsCli()).importSkillCommand(name, flags, processIo()));
}

/** deploy, add, create: skills copied or written somewhere. */
function registerCopyCommands(skills: Command): void {
  skills
    .command('deploy')
    .description('Copy a skill where the given CLIs read it')
    .argument('<name>')
    .option('--agent <clis>', 'comma-separated: claude, codex, gemini, opencode, copilot', 'claude')
    .option('--scope <scope>', 'user (your home) or project (this directory)', 'project')
    .option('--json', 'print JSON')
    .addHelpText('after', '\nExample:\n  synapse skills deploy code-review --agent claude,codex --scope user')
    .action(async (name: string, flags: Flags) => (await skillsCli()).deploySkillCommand(name, flags, processIo()));

  skills
    .command('add')
    .description('Add skills from a folder or a git URL (each SKILL.md front matter is checked first)')
    .argument('<source>', 'a skill folder, a folder of skills, or a git URL')
    .option('--scope <scope>', 'synapse (default), user or project')
    .option('--agent <cli>', 'with --scope user|project: the CLI whose folder to use', 'claude')
    .option('--json', 'print JSON')
    .addHelpText('after', '\nExamples:\n  synapse skills add ./my-skills\n  synapse skills add https://github.com/acme/skills.git --scope project')
    .action(async (source: string, flags: Flags) => (await skillsCli()).addSkillCommand(source, flags, processIo()));

  skills
    .command('create')
    .description('Create a skill from a template (asks for the name on a terminal)')
    .argument('[name]')
    .option('--scope <scope>', 'synapse (default), user or project')
    .option('--agent <cli>', 'with --scope user|project: the CLI whose folder to use', 'claude')
    .option('--json', 'print JSON')
    .addHelpText('after', '\nExample:\n  synapse skills create release-notes --scope project')
    .action(async (name: string | undefined, flags: Flags) => (await skillsCli()).createSkillCommand(name, flags, processIo()));
}

/** set list, set show, apply. */
function registerSetCommands(skills: Command): void {
  const set = skills.command('set').description('Skill sets (.synapse/skill_sets.json): named groups of skills for a role');
  set
    .command('list')
    .description('List the skill sets (shipped defaults < ~/.synapse < .synapse)')
    .option('--json', 'print JSON')
    .addHelpText('after', '\nExample:\n  synapse skills set list')
    .action(async (flags: Flags) => (await setsCli()).listSetsCommand(flags, processIo()));
  set
    .command('show')
    .description('Show a set: each skill and where it is found, or MISSING')
    .argument('<name>')
    .option('--json', 'print JSON')
    .addHelpText('after', '\nExample:\n  synapse skills set show reviewer')
    .action(async (name: string, flags: Flags) => (await setsCli()).showSetCommand(name, flags, processIo()));

  skills
    .command('apply')
    .description("Deploy a skill set for a running agent's CLI and tell the agent to load it")
    .argument('<target>', 'name, agent id, type-port or type')
    .argument('<set>', 'a skill set (synapse skills set list)')
    .option('--dry-run', 'say what would be deployed and sent; change nothing')
    .option('--scope <scope>', "project (the agent's directory) or user (its home)", 'project')
    .option('--from <agent>', 'send the load message as this agent')
    .option('--json', 'print JSON')
    .addHelpText('after', '\nExamples:\n  synapse skills apply bob reviewer --dry-run\n  synapse skills apply synapse-codex-8120 developer')
    .action(async (target: string, setName: string, flags: ApplyFlags) => (await setsCli()).applySetCommand(target, setName, flags, processIo()));
}
