import type { ProfileId } from './types.js';

/** Fixed port ranges per CLI, so `type-port` ids are stable and predictable. */
export const PORT_RANGES: Record<ProfileId, { first: number; last: number }> = {
  claude: { first: 8100, last: 8109 },
  gemini: { first: 8110, last: 8119 },
  codex: { first: 8120, last: 8129 },
  opencode: { first: 8130, last: 8139 },
  copilot: { first: 8140, last: 8149 },
  echo: { first: 8190, last: 8199 },
};
