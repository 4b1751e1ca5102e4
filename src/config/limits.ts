import { envSetting } from './env-setting.js';
import type { Env } from './env.js';

/**
 * What one agent takes before it refuses (issue 15 §5): every limit is a setting (SYNAPSE_MAX_BODY_BYTES and the others below)
 * variable (env-vars.ts), read once when the agent starts.
 */
export interface Limits {
  /** Bytes of one HTTP body or gRPC message (413). */
  bodyBytes: number;
  /** Characters of text in one message (413). */
  messageChars: number;
  /** Parts of one message (413). */
  messageParts: number;
  /** Messages of one sender waiting in the inbox (429 + Retry-After). */
  queuedPerSender: number;
  /** SSE streams open at a time (429). */
  sseStreams: number;
  /** Registered webhooks (409). */
  webhooks: number;
}

export function readLimits(env: Env): Limits {
  return {
    bodyBytes: envSetting(env, 'SYNAPSE_MAX_BODY_BYTES'),
    messageChars: envSetting(env, 'SYNAPSE_MAX_MESSAGE_CHARS'),
    messageParts: envSetting(env, 'SYNAPSE_MAX_MESSAGE_PARTS'),
    queuedPerSender: envSetting(env, 'SYNAPSE_MAX_QUEUED_PER_SENDER'),
    sseStreams: envSetting(env, 'SYNAPSE_MAX_SSE_STREAMS'),
    webhooks: envSetting(env, 'SYNAPSE_MAX_WEBHOOKS'),
  };
}

/** The limits when nothing is set (apps built for `inject` in tests). */
export const DEFAULT_LIMITS: Limits = readLimits({});
