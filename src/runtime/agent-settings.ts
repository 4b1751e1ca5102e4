import { numberSetting } from '../config/env-number.js';
import { originListSetting } from '../config/env-origins.js';
import type { Env } from '../config/paths.js';
import { DEFAULT_LONG_MESSAGE_THRESHOLD } from './framing.js';
import { DEFAULT_REPLY_GRACE_MS } from './replies.js';
import { webhookSettings } from './webhook-dispatcher.js';

/** The agent's settings from the environment, typed. */
export interface AgentSettings {
  /** `SYNAPSE_LONG_MESSAGE_THRESHOLD`: characters above which a message goes to a file. */
  longMessageThreshold: number;
  /** `SYNAPSE_REPLY_GRACE` (seconds): how long an idle agent has to reply before its output completes the task. */
  replyGraceMs: number;
  webhookTimeoutMs: number;
  webhookMaxRetries: number;
  /** `SYNAPSE_CORS_ORIGINS`: web origins allowed to call the agent besides its own. */
  corsOrigins: string[];
}

/**
 * Reads and checks every setting of an agent that comes from the environment. Call it before anything is claimed or
 * spawned: a value that does not parse stops the start with an error that names the variable
 * (an error after the port is bound leaves a process that never exits).
 */
export function agentSettings(env: Env): AgentSettings {
  const webhooks = webhookSettings(env);
  return {
    longMessageThreshold: numberSetting(env, 'SYNAPSE_LONG_MESSAGE_THRESHOLD', {
      default: DEFAULT_LONG_MESSAGE_THRESHOLD,
      integer: true,
      min: 1,
      unit: 'characters',
    }),
    replyGraceMs: numberSetting(env, 'SYNAPSE_REPLY_GRACE', { default: DEFAULT_REPLY_GRACE_MS / 1000, min: 0, unit: 'seconds' }) * 1000,
    webhookTimeoutMs: webhooks.timeoutMs,
    webhookMaxRetries: webhooks.maxRetries,
    corsOrigins: originListSetting(env, 'SYNAPSE_CORS_ORIGINS'),
  };
}
