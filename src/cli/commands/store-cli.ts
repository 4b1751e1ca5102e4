import os from 'node:os';
import type { Command } from 'commander';
import { SynapseError } from '../../errors.js';
import type { CommandIo } from '../io.js';
import { envSetting } from '../../config/env-setting.js';

/**
 * Small helpers shared by the `tasks`, `file-safety` and `memory` command groups. Nothing here
 * may import the store modules: those load better-sqlite3 and are imported inside actions.
 */

/** The project whose `.synapse/` holds the shared store: the cwd, or `SYNAPSE_PROJECT_DIR`. */
export function projectDir(io: CommandIo): string {
  return envSetting(io.env, 'SYNAPSE_PROJECT_DIR') ?? io.cwd;
}

/**
 * Who is calling: the agent id the runtime puts in its CLI's environment, else a name, else
 * the OS user (a human at a shell).
 */
export function callerIdentity(env: NodeJS.ProcessEnv): string {
  const self = envSetting(env, 'SYNAPSE_AGENT_ID') ?? envSetting(env, 'SYNAPSE_AGENT_NAME');
  if (self) return self;
  try {
    return os.userInfo().username || 'user';
  } catch {
    // userInfo() throws when the uid has no passwd entry (some containers): $USER will do.
    return env.USER || 'user';
  }
}

/** Adds the "Examples:" block every command's --help shows. */
export function examples(cmd: Command, lines: string[]): Command {
  return cmd.addHelpText('after', `\nExamples:\n${lines.map((l) => `  ${l}`).join('\n')}`);
}

export function parsePositiveInt(value: string, what: string, max = Number.MAX_SAFE_INTEGER): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < 1 || n > max) {
    throw new SynapseError('usage', `${what} must be a whole number from 1 to ${max}, got '${value}'`);
  }
  return n;
}

/** `a,b` and repeated flags alike → `['a', 'b']`. */
export function splitList(values: string[] | string | undefined): string[] {
  if (values === undefined) return [];
  return (Array.isArray(values) ? values : [values])
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v.length > 0);
}
