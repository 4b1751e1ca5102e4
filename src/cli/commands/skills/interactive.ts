import { SynapseError } from '../../../errors.js';
import { listSkills } from '../../../skills/catalog.js';
import { deploySkill } from '../../../skills/deploy.js';
import { deleteCopies, writableCopies } from '../../../skills/manage.js';
import { WRITABLE_SCOPES } from '../../../skills/scopes.js';
import { println, type CommandIo } from '../../io.js';
import { ctxOf, showSkillCommand } from './skills.js';

const QUIT = '\u0000quit';

/** `synapse skills` on a terminal: pick a skill, then show, deploy or delete it; until quit (or Ctrl-C). */
export async function interactiveSkills(io: CommandIo): Promise<void> {
  const { select, checkbox, confirm } = await import('@inquirer/prompts');
  for (;;) {
    const skills = listSkills(ctxOf(io));
    const names = [...new Set(skills.map((s) => s.name))];
    let name: string;
    try {
      name = await select({
        message: `Skills (${names.length})`,
        choices: [
          ...names.map((n) => ({
            name: `${n}  [${skills
              .filter((s) => s.name === n)
              .map((s) => s.scope)
              .join(', ')}]`,
            value: n,
          })),
          { name: 'quit', value: QUIT },
        ],
        pageSize: 15,
      });
      if (name === QUIT) return;
      const action = await select({
        message: name,
        choices: [
          { name: 'show', value: 'show' },
          { name: 'deploy for CLIs', value: 'deploy' },
          { name: 'delete', value: 'delete' },
          { name: 'back', value: 'back' },
        ],
      });
      if (action === 'show') await showSkillCommand(name, {}, io);
      if (action === 'deploy') {
        const agents = await checkbox({
          message: 'For which CLIs?',
          choices: ['claude', 'codex', 'gemini', 'opencode', 'copilot'].map((a) => ({ name: a, value: a })),
          required: true,
        });
        const scope = await select({ message: 'Where?', choices: [{ value: 'project' as const }, { value: 'user' as const }] });
        for (const d of deploySkill(name, agents, scope, ctxOf(io))) println(io, `${d.changed ? 'deployed' : 'up to date:'} ${d.name} -> ${d.to}`);
      }
      if (action === 'delete') {
        const copies = writableCopies(name, ctxOf(io));
        const chosen = await checkbox({
          message: 'Delete which copies?',
          choices: copies.filter((c) => WRITABLE_SCOPES.includes(c.scope)).map((c) => ({ name: `${c.scope}  ${c.path}`, value: c })),
        });
        if (chosen.length && (await confirm({ message: `Delete ${chosen.length} ${chosen.length === 1 ? 'copy' : 'copies'}?`, default: false }))) {
          deleteCopies(chosen);
          println(io, `deleted ${chosen.map((c) => c.path).join(', ')}`);
        }
      }
    } catch (err) {
      // Ctrl-C in a prompt ends the session quietly; a Synapse error is shown and the loop goes on.
      if ((err as Error).name === 'ExitPromptError') return;
      if (err instanceof SynapseError) io.err(`synapse: ${err.message}\n`);
      else throw err;
    }
  }
}
