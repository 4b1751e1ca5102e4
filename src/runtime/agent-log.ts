import fs from 'node:fs';
import path from 'node:path';
import type * as Pino from 'pino';
import type { Logger as PinoLogger } from 'pino';
import { requireCjs } from '../require-cjs.js';
import { envSetting } from '../config/env-setting.js';
import { iso } from '../clock.js';

const { pino } = requireCjs('pino') as typeof Pino;

/** pino's `isoTime`, written by `iso` (no Date made into text, so ICU's time zones never load). */
const isoTime = () => `,"time":"${iso(Date.now())}"`;

export interface AgentLog {
  logger: PinoLogger;
  /** Where the log goes: a file, or null for stdout. */
  file: string | null;
  /** Flushes and closes the file (stdout stays open). */
  close(): Promise<void>;
}

/**
 * The agent's event log: one JSON line per event (pino), `{"level":"info","time":"…",
 * "agent_id":"…","msg":"…"}`; `synapse logs` prints them as `time agent_id msg`. Writes are
 * synchronous: an agent logs a few lines a minute, and a line must not be lost when the process
 * exits right after it (a CLI that dies at start-up).
 */
export function openAgentLog(agentId: string, file: string | null, level = 'info'): AgentLog {
  // The log names peers and quotes their messages: 0600 in a 0700 directory, like the other files.
  if (file) fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const dest = pino.destination({ dest: file ?? 1, sync: true, append: true, mode: 0o600 });
  const logger = pino(
    {
      level,
      base: { agent_id: agentId },
      timestamp: isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    dest,
  );
  return {
    logger,
    file,
    close: () =>
      new Promise<void>((resolve) => {
        if (!file) return resolve();
        dest.flushSync();
        dest.end();
        resolve();
      }),
  };
}

const LEVELS = new Set(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']);

/** `SYNAPSE_LOG_LEVEL` (the original's name), `info` when unset or not a level. */
export function logLevel(env: NodeJS.ProcessEnv): string {
  const raw = envSetting(env, 'SYNAPSE_LOG_LEVEL')?.trim().toLowerCase();
  return raw && LEVELS.has(raw) ? raw : 'info';
}
