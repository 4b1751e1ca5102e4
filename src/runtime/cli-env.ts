import type { Env } from '../config/paths.js';
import type { Profile } from '../profiles/types.js';

/** Who the CLI runs as: its `synapse` commands (send, reply) read these. */
export interface CliIdentity {
  agentId: string;
  port: number;
}

/**
 * The CLI's environment, as a person's terminal would give it: synapse's own environment without
 * the variables that would make this CLI behave as if nobody started it (the profile's `dropEnv`:
 * `CI=true` puts Gemini CLI in headless mode), then the profile's variables, a 256-colour
 * terminal (Codex refuses `TERM=dumb`, which an agent's shell commands often run with), and who
 * it runs as. `dropped` names what was left out, for the log.
 */
export function cliEnv(env: Env, profile: Pick<Profile, 'id' | 'env' | 'dropEnv'>, id: CliIdentity): { env: Record<string, string>; dropped: string[] } {
  const drop = new Set(profile.dropEnv);
  const kept: Record<string, string> = {};
  const dropped: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (drop.has(name)) dropped.push(name);
    else kept[name] = value;
  }
  return {
    env: { ...kept, ...profile.env, TERM: 'xterm-256color', SYNAPSE_AGENT_ID: id.agentId, SYNAPSE_AGENT_TYPE: profile.id, SYNAPSE_PORT: String(id.port) },
    dropped,
  };
}
