import os from 'node:os';
import path from 'node:path';
import type { Env } from './env.js';
import { envSetting } from './env-setting.js';

export type { Env } from './env.js';

/** The user's home: `HOME` from the given environment (tests give a temporary one), else the OS's. */
export function home(env: Env): string {
  return env.HOME && env.HOME.length > 0 ? env.HOME : os.homedir();
}

/** `~/.a2a/registry`, or `SYNAPSE_REGISTRY_DIR`. One JSON file per running agent. */
export function registryDir(env: Env): string {
  return envSetting(env, 'SYNAPSE_REGISTRY_DIR') ?? path.join(home(env), '.a2a', 'registry');
}

/** `~/.synapse`: per-user state (logs, agent task databases, history). */
export function synapseHome(env: Env): string {
  return envSetting(env, 'SYNAPSE_HOME') ?? path.join(home(env), '.synapse');
}

export function logsDir(env: Env): string {
  return envSetting(env, 'SYNAPSE_LOG_DIR') ?? path.join(synapseHome(env), 'logs');
}

/** Each agent keeps its tasks and inbox in its own SQLite file here, so they outlive a restart. */
export function agentStateDir(env: Env): string {
  return envSetting(env, 'SYNAPSE_STATE_DIR') ?? path.join(synapseHome(env), 'agents');
}

/**
 * `~/.synapse/exited`: one file per agent whose CLI exited by itself, saying how (exit code, last
 * lines of its screen), for `synapse start`, `list` and `logs`. Not in the registry directory:
 * that one is shared with the original Synapse, which reads every file there as an agent.
 */
export function exitRecordDir(env: Env): string {
  return path.join(synapseHome(env), 'exited');
}

/** `~/.a2a/reply`, or `SYNAPSE_REPLY_TARGET_DIR`: each agent's stack of senders awaiting an answer. */
export function replyDir(env: Env): string {
  return envSetting(env, 'SYNAPSE_REPLY_TARGET_DIR') ?? path.join(home(env), '.a2a', 'reply');
}

/**
 * Per-user temp dir for long messages handed to a CLI as a file: `SYNAPSE_LONG_MESSAGE_DIR`, or
 * its older name `SYNAPSE_MESSAGE_DIR`.
 */
export function messageFileDir(env: Env): string {
  const uid = typeof process.getuid === 'function' ? process.getuid() : 'user';
  return (
    envSetting(env, 'SYNAPSE_LONG_MESSAGE_DIR') ?? envSetting(env, 'SYNAPSE_MESSAGE_DIR') ?? path.join(env.TMPDIR || os.tmpdir(), `synapse-${uid}`, 'messages')
  );
}

/** The project's shared store: `<project>/.synapse`. */
export function projectSynapseDir(cwd: string = process.cwd()): string {
  return path.join(cwd, '.synapse');
}

/** `~/.synapse/canvas.db` (or `SYNAPSE_CANVAS_DB_PATH`): the Canvas dashboard's cards, one file for every agent of the user. */
export function canvasDbPath(env: Env): string {
  return envSetting(env, 'SYNAPSE_CANVAS_DB_PATH') ?? path.join(synapseHome(env), 'canvas.db');
}

/** `~/.synapse/canvas.json`: the running `synapse canvas serve` (pid, port, url), for `status`, `stop` and posting. */
export function canvasStateFile(env: Env): string {
  return path.join(synapseHome(env), 'canvas.json');
}
