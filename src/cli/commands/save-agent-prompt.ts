import { envSetting } from '../../config/env-setting.js';
import { listSavedAgents, saveAgent, suggestSavedId } from '../../team/saved-agents.js';
import type { CommandIo } from '../io.js';

interface Definition {
  profile: string;
  name: string;
  role: string | undefined;
  skillSet: string | undefined;
  port: number | undefined;
}

/**
 * After a person quits an interactive named agent: `Save this agent definition for reuse? [y/N]:`
 * (the original's prompt). Not asked when `SYNAPSE_AGENT_SAVE_PROMPT_ENABLED=false`, or when the
 * same definition is saved already; the caller leaves out headless, non-TTY, spawned agents and
 * agents stopped by `synapse stop`/`kill`.
 */
export async function offerToSave(def: Definition, io: CommandIo): Promise<void> {
  if (!envSetting(io.env, 'SYNAPSE_AGENT_SAVE_PROMPT_ENABLED')) return;
  if (!io.isTerminal('stdin') || !io.isTerminal('stderr')) return;
  const same = listSavedAgents(io.cwd, io.env).some(
    (a) => a.profile === def.profile && a.name === def.name && (a.role ?? undefined) === def.role && (a.skill_set ?? undefined) === def.skillSet,
  );
  if (same) return;
  const { askSaveAgent } = await import('../start-prompts.js');
  const answer = await askSaveAgent(suggestSavedId(def.name, io.cwd, io.env));
  if (!answer) return;
  try {
    const saved = saveAgent(
      { id: answer.id, name: def.name, profile: def.profile, role: def.role, skill_set: def.skillSet, port: def.port, scope: answer.scope },
      io.cwd,
      io.env,
    );
    io.err(`saved ${saved.id} (${saved.file}); start it again with \`synapse ${def.profile} --agent ${saved.id}\` or \`synapse spawn ${saved.id}\`\n`);
  } catch (err) {
    io.err(`not saved: ${(err as Error).message}\n`);
  }
}
