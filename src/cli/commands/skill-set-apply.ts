import type { Logger } from '../../logger.js';
import type { CommandIo } from '../io.js';

/** Deploys a skill set for a new agent and tells it to load it (`synapse skills apply`, its output unprinted). */
export async function applySkillSet(agentId: string, set: string, io: CommandIo): Promise<void> {
  const { applySetCommand } = await import('./skills/sets.js');
  await applySetCommand(agentId, set, { json: true }, { ...io, out: () => undefined });
}

/** The same for an agent started with `--agent`: a failure is said (in the log, or on stderr), not thrown. */
export async function applySkillSetQuietly(agentId: string, set: string, io: CommandIo, log: Logger | null): Promise<void> {
  try {
    await applySkillSet(agentId, set, io);
  } catch (err) {
    const line = `skill set ${set} not applied to ${agentId}: ${(err as Error).message}`;
    if (log) log.warn(line);
    else io.err(`${line}\n`);
  }
}
