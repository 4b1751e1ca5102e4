import { SynapseError } from '../errors.js';
import { claudeProfile } from './claude.js';
import { codexProfile } from './codex.js';
import { copilotProfile } from './copilot.js';
import { echoProfile } from './echo.js';
import { geminiProfile } from './gemini.js';
import { opencodeProfile } from './opencode.js';
import { PORT_RANGES } from './ports.js';
import type { Profile, ProfileId } from './types.js';

const PROFILES: Profile[] = [claudeProfile, geminiProfile, codexProfile, opencodeProfile, copilotProfile, echoProfile];

export function listProfiles(): Profile[] {
  return [...PROFILES];
}

/** Every profile id whose port range is reserved, shipped or not yet. */
export function reservedRanges(): Array<{ id: ProfileId; first: number; last: number; available: boolean }> {
  return (Object.keys(PORT_RANGES) as ProfileId[]).map((id) => ({
    id,
    ...PORT_RANGES[id],
    available: PROFILES.some((p) => p.id === id),
  }));
}

export function findProfile(name: string): Profile | undefined {
  const n = name.toLowerCase();
  return PROFILES.find((p) => p.id === n || p.aliases.includes(n));
}

/** Every shipped profile with its aliases: `claude (claude-code), …, echo (dummy)`. */
export function profileNames(): string {
  return PROFILES.map((x) => (x.aliases.length ? `${x.id} (${x.aliases.join(', ')})` : x.id)).join(', ');
}

export function getProfile(name: string): Profile {
  const p = findProfile(name);
  if (!p) throw new SynapseError('unknown_profile', `unknown profile "${name}". Available profiles: ${profileNames()}`);
  return p;
}

export type { Profile, ProfileId } from './types.js';
