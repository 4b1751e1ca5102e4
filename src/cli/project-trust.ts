import { effectiveEnv, resolveSettings, type TrustSubject } from '../config/settings.js';
import { decisionFor, projectTrustCheck, recordDecision, type TrustRecord } from '../registry/project-trust.js';
import { ExitRequest } from './exit.js';
import type { CommandIo } from './io.js';

/**
 * Project settings need trust (the CLI side): before an agent starts, the `env` and `hooks` of
 * the project's settings files (a cloned repository's) are applied only when the user trusts
 * exactly that content (`synapse trust`). On a terminal, the first time (or after they changed)
 * the user is shown what they are and asked; without one, or when the user says no, the agent
 * starts without them and says so loudly (stderr, its log, its registry entry, `synapse status`).
 */

/** A value from a settings file, shown on the user's terminal: quoted, with every control and format character escaped. */
function shownValue(value: unknown): string {
  return JSON.stringify(String(value)).replace(/[\p{Cc}\p{Cf}]/gu, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The project's env and hooks, file by file, one line each. */
export function describeSubject(subject: TrustSubject): string {
  const lines: string[] = [];
  for (const part of subject.parts) {
    lines.push(`  ${part.file}`);
    for (const [name, value] of Object.entries(part.env)) lines.push(`    env.${name} = ${shownValue(value)}`);
    for (const [event, command] of Object.entries(part.hooks))
      lines.push(`    hooks.${event} = ${shownValue(command)}${command.trim() === '' ? '  (removes your own hook)' : '  (a shell command)'}`);
  }
  return lines.join('\n');
}

type Answer = 'trust' | 'skip' | 'deny';

/** The question on a terminal: what the files ask for, then trust / not now / never. Ctrl-C stops the start. */
async function askTrust(subject: TrustSubject, io: CommandIo): Promise<Answer> {
  io.err(`[Synapse] This project's settings set environment variables or run commands:\n${describeSubject(subject)}\n`);
  const { select } = await import('@inquirer/prompts');
  try {
    return await select<Answer>(
      {
        message: 'Apply them?',
        default: 'skip',
        choices: [
          { name: 'Yes, trust them (until they change)', value: 'trust' },
          { name: 'Not now (start without them; ask again next time)', value: 'skip' },
          { name: 'Never these (start without them; `synapse trust` changes that)', value: 'deny' },
        ],
      },
      { output: process.stderr },
    );
  } catch (err) {
    if ((err as Error).name === 'ExitPromptError') throw new ExitRequest(130);
    throw err;
  }
}

/** What stderr says when they are not applied. */
function refusal(subject: TrustSubject, decision: TrustRecord | null, io: CommandIo): string {
  const why = decision?.decision === 'denied' ? `you declined them (${decision.at})` : 'you have not trusted them';
  return [
    `synapse: NOT APPLIED: this project's settings set environment variables or run commands, and ${why}:`,
    describeSubject(subject),
    `synapse: the agent starts without them. Review them, then run \`synapse trust\` in ${io.cwd} to apply them (\`synapse trust --show\` shows them).`,
    '',
  ].join('\n');
}

export interface Settled {
  /** The io to start with: its `env` holds the project's variables once they are trusted here. */
  io: CommandIo;
  /** The keys left out (`env.SYNAPSE_X`, `hooks.on_idle`); empty when nothing was. */
  withheld: string[];
}

/**
 * Before an agent starts: the project's env and hooks, settled. Trusted already (or none): as
 * they are. Otherwise, with `ask` (a person at a terminal, and this start not already decided by
 * whoever spawned it) and no earlier decision about this content: the question. Else, or on a no:
 * a loud note on stderr, and the keys left out for the agent's registry entry.
 */
export async function settleProjectTrust(io: CommandIo, ask: boolean): Promise<Settled> {
  const base = io.baseEnv ?? io.env;
  const check = projectTrustCheck(base);
  const pt = resolveSettings(io.cwd, base, check).projectTrust;
  if (!pt || pt.trusted) return { io, withheld: [] };
  let decision: TrustRecord | null = null;
  try {
    decision = decisionFor(pt.subject, base);
  } catch (err) {
    io.err(`synapse: ${(err as Error).message}\n`);
  }
  if (ask && decision === null) {
    const answer = await askTrust(pt.subject, io);
    if (answer === 'trust') {
      recordDecision(pt.subject, 'trusted', base);
      io.err(`[Synapse] Trusted: ${pt.subject.keys.join(', ')} (\`synapse trust --revoke\` takes it back)\n`);
      return { io: { ...io, env: effectiveEnv(io.cwd, base, check) }, withheld: [] };
    }
    if (answer === 'deny') decision = recordDecision(pt.subject, 'denied', base);
  }
  io.err(refusal(pt.subject, decision, io));
  return { io, withheld: pt.subject.keys };
}
