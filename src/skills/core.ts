import fs from 'node:fs';
import path from 'node:path';
import type { Env } from '../config/paths.js';
import { builtinSkillsDir, centralStore, cliSkillsDir, dirKindFor } from './scopes.js';
import { sameTree } from './tree.js';

/** The skill every agent gets at start: how to work in a Synapse team. */
export const CORE_SKILL = 'synapse-a2a';

/** Written into a copy Synapse deployed, so it refreshes its own copies and never touches one a person put there. */
const MARKER = '.synapse-deployed';
const IGNORE = new Set([MARKER]);

export type CoreSkillResult = { deployed: string } | { skipped: string };

/**
 * Deploys the core skill into the user-scope folder the agent's CLI reads
 * (`~/.claude/skills/synapse-a2a` for Claude Code, `~/.agents/skills/synapse-a2a` for the others)
 * from the central store (`~/.synapse/skills`, when it has one) or the copy shipped with Synapse.
 * Best effort: a failure is reported, never thrown. Not for the echo agent (no CLI reads skills).
 */
export function deployCoreSkill(agentType: string, env: Env, cwd: string): CoreSkillResult {
  if (agentType === 'echo' || agentType === 'dummy') return { skipped: 'the echo agent reads no skills' };
  try {
    const central = path.join(centralStore(env), CORE_SKILL);
    const source = fs.existsSync(path.join(central, 'SKILL.md')) ? central : path.join(builtinSkillsDir(), CORE_SKILL);
    if (!fs.existsSync(path.join(source, 'SKILL.md'))) return { skipped: `no ${CORE_SKILL} skill at ${source}` };
    const target = path.join(cliSkillsDir(dirKindFor(agentType), 'user', { env, cwd }), CORE_SKILL);
    if (fs.existsSync(target)) {
      if (!fs.existsSync(path.join(target, MARKER))) return { skipped: `${target} was not deployed by Synapse; left as it is` };
      if (sameTree(source, target, IGNORE)) return { skipped: `${target} is up to date` };
    }
    const root = path.dirname(target);
    fs.mkdirSync(root, { recursive: true });
    const staging = fs.mkdtempSync(path.join(root, `.${CORE_SKILL}-`));
    try {
      fs.cpSync(source, staging, { recursive: true });
      fs.writeFileSync(
        path.join(staging, MARKER),
        `deployed by synapse from ${source}; it is refreshed at each start. Delete this file to keep your own edits.\n`,
      );
      fs.rmSync(target, { recursive: true, force: true });
      fs.renameSync(staging, target);
    } finally {
      fs.rmSync(staging, { recursive: true, force: true });
    }
    return { deployed: target };
  } catch (err) {
    return { skipped: `could not deploy ${CORE_SKILL}: ${(err as Error).message}` };
  }
}
