import { peerTls, type PeerTls } from '../a2a/peer-tls.js';
import { envSetting } from '../config/env-setting.js';
import { readLimits, type Limits } from '../config/limits.js';
import type { Env } from '../config/paths.js';
import { serverTls, type ServerTls } from '../config/tls.js';
import { webhookSettings } from './webhook-dispatcher.js';
import { authSettings, type AuthSettings } from '../config/auth-keys.js';
import { parseAllowedHosts } from '../server/host-check.js';

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
  /** `SYNAPSE_ALLOWED_HOSTS`: host names a request's Host may carry besides the agent's own addresses. */
  allowedHosts: string[];
  /** API keys (`SYNAPSE_AUTH_ENABLED`, `SYNAPSE_API_KEYS`, `SYNAPSE_ADMIN_KEY`, `SYNAPSE_ALLOW_LOCALHOST`). */
  auth: AuthSettings;
  /** Limits (config/limits.ts): body size, message size, per-sender queue, SSE streams, webhooks. */
  limits: Limits;
  /** `SYNAPSE_USE_HTTPS`: the certificate the agent serves with, or null for plain HTTP. */
  tls: ServerTls | null;
  /** What the agent trusts when it calls https peers (`SYNAPSE_TLS_CA`, its own certificate). */
  peerTls: PeerTls | undefined;
  /** `SYNAPSE_LONG_MESSAGE_TTL`: a long-message file is removed this long after it was written. */
  longMessageTtlMs: number;
  /** `SYNAPSE_FILE_SAFETY_RETENTION_DAYS`: file-safety change records older than this are purged. */
  fileSafetyRetentionDays: number;
  /** `SYNAPSE_SCROLLBACK_LINES`: rows of the CLI's scrollback kept for status and replies. */
  scrollbackLines: number;
  /** `SYNAPSE_IDLE_GC_MS`: quiet time after work (start-up too) before one full collection (0: never, and no lean spell). */
  idleGcMs: number;
  /** `SYNAPSE_OPTIMIZE_AFTER_KB`, in characters: the CLI's output that turns V8's optimizing and baseline compilers on (0: on from the start). */
  optimizeAfterChars: number;
}

/**
 * Reads and checks every setting of an agent that comes from the environment. Call it before anything is claimed or
 * spawned: a value that does not parse stops the start with an error that names the variable
 * (an error after the port is bound leaves a process that never exits).
 */
export function agentSettings(env: Env): AgentSettings {
  const webhooks = webhookSettings(env);
  return {
    longMessageThreshold: envSetting(env, 'SYNAPSE_LONG_MESSAGE_THRESHOLD'),
    replyGraceMs: envSetting(env, 'SYNAPSE_REPLY_GRACE') * 1000,
    webhookTimeoutMs: webhooks.timeoutMs,
    webhookMaxRetries: webhooks.maxRetries,
    corsOrigins: envSetting(env, 'SYNAPSE_CORS_ORIGINS'),
    // The advertised address (issue 22 §3) is a name of this agent too: other hosts send it as Host.
    allowedHosts: parseAllowedHosts([envSetting(env, 'SYNAPSE_ALLOWED_HOSTS'), envSetting(env, 'SYNAPSE_ADVERTISE_HOST')].filter(Boolean).join(',')),
    auth: authSettings(env),
    limits: readLimits(env),
    tls: serverTls(env),
    peerTls: peerTls(env),
    longMessageTtlMs: envSetting(env, 'SYNAPSE_LONG_MESSAGE_TTL') * 1000,
    scrollbackLines: envSetting(env, 'SYNAPSE_SCROLLBACK_LINES'),
    idleGcMs: envSetting(env, 'SYNAPSE_IDLE_GC_MS'),
    optimizeAfterChars: envSetting(env, 'SYNAPSE_OPTIMIZE_AFTER_KB') * 1024,
    fileSafetyRetentionDays: envSetting(env, 'SYNAPSE_FILE_SAFETY_RETENTION_DAYS'),
  };
}
