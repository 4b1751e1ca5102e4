import fs from 'node:fs';
import path from 'node:path';
import { SynapseError } from '../errors.js';
import { envSetting } from './env-setting.js';
import { synapseHome, type Env } from './paths.js';
import { nodeCrypto } from '../require-cjs.js';

/**
 * API keys, for the agent that checks them and for every `synapse` command and agent that sends
 * them (issue 15 §2). Below the layers on purpose: the CLI and the runtime read the same
 * settings and the same per-user key file.
 *
 * The per-user key: on a machine shared by several people, loopback is not private. With
 * `SYNAPSE_AUTH_ENABLED` on and `SYNAPSE_ALLOW_LOCALHOST` off, the first agent or command that
 * needs a key creates `~/.synapse/api-key` (0600, in a 0700 directory); every agent of that user
 * accepts it, as an admin key, and every `synapse` command of that user sends it. Nobody has to
 * copy a key anywhere.
 */

export type Access = 'public' | 'user' | 'admin';

export interface AuthSettings {
  enabled: boolean;
  /** Loopback callers pass without a key. */
  allowLocalhost: boolean;
  /** Keys that open every route but the admin ones. */
  userKeys: string[];
  /** Keys that open every route (`SYNAPSE_ADMIN_KEY`, the per-user key). */
  adminKeys: string[];
}

const KEY_FILE = 'api-key';

/** A new random key: `synapse_` and 32 random bytes, base64url. */
export function generateApiKey(): string {
  return `synapse_${nodeCrypto().randomBytes(32).toString('base64url')}`;
}

/** The comma-separated keys of `SYNAPSE_API_KEYS`, blanks dropped. */
function keyList(raw: string | undefined): string[] {
  return (raw ?? '')
    .split(',')
    .map((k) => k.trim())
    .filter((k) => k.length > 0);
}

/** `~/.synapse/api-key`: the per-user key. */
function userKeyFile(env: Env): string {
  return path.join(synapseHome(env), KEY_FILE);
}

/** The per-user key, or null when there is none yet. Refuses a file other people may read. */
function readUserKey(env: Env): string | null {
  const file = userKeyFile(env);
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  const uid = typeof process.getuid === 'function' ? process.getuid() : stat.uid;
  if (!stat.isFile() || stat.uid !== uid || (stat.mode & 0o077) !== 0) {
    throw new SynapseError(
      'invalid_input',
      `the API key file ${file} must be a file of yours that only you can read: run \`chmod 600 ${file}\`, or remove it and a new one is made`,
    );
  }
  const key = fs.readFileSync(file, 'utf8').trim();
  if (key === '') throw new SynapseError('invalid_input', `the API key file ${file} is empty: remove it and a new one is made`);
  return key;
}

/** The per-user key, created (0600, atomically: two processes at once get the same key) when absent. */
function ensureUserKey(env: Env): string {
  const existing = readUserKey(env);
  if (existing) return existing;
  const file = userKeyFile(env);
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.${nodeCrypto().randomBytes(4).toString('hex')}`;
  fs.writeFileSync(tmp, `${generateApiKey()}\n`, { mode: 0o600, flag: 'wx' });
  try {
    fs.linkSync(tmp, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    fs.rmSync(tmp, { force: true });
  }
  return readUserKey(env)!;
}

/** The per-user key when one is needed (auth on, loopback not trusted) or already exists. */
function userKey(env: Env): string | null {
  const needed = envSetting(env, 'SYNAPSE_AUTH_ENABLED') && !envSetting(env, 'SYNAPSE_ALLOW_LOCALHOST');
  return needed ? ensureUserKey(env) : readUserKey(env);
}

/** What an agent checks: read once at start (the per-user key is created then if needed). */
export function authSettings(env: Env): AuthSettings {
  const enabled = envSetting(env, 'SYNAPSE_AUTH_ENABLED');
  const admin = envSetting(env, 'SYNAPSE_ADMIN_KEY')?.trim();
  const own = enabled ? userKey(env) : null;
  return {
    enabled,
    allowLocalhost: envSetting(env, 'SYNAPSE_ALLOW_LOCALHOST'),
    userKeys: keyList(envSetting(env, 'SYNAPSE_API_KEYS')),
    adminKeys: [admin, own].filter((k): k is string => typeof k === 'string' && k.length > 0),
  };
}

/**
 * The key a client sends to an agent for a route of `access`: for an admin route the admin key
 * or the per-user key first; otherwise the first of `SYNAPSE_API_KEYS`, then the per-user key,
 * then the admin key. Null when there is none (loopback callers need none by default).
 */
function clientApiKey(env: Env, access: Exclude<Access, 'public'> = 'user'): string | null {
  const admin = envSetting(env, 'SYNAPSE_ADMIN_KEY')?.trim() || null;
  const first = keyList(envSetting(env, 'SYNAPSE_API_KEYS'))[0] ?? null;
  const own = userKey(env);
  return (access === 'admin' ? (admin ?? own ?? first) : (first ?? own ?? admin)) ?? null;
}

/** The header that carries the key to an agent (none when there is no key): for agents only, never for webhooks. */
export function apiKeyHeaders(env: Env, access: Exclude<Access, 'public'> = 'user'): Record<string, string> {
  const key = clientApiKey(env, access);
  return key ? { 'x-api-key': key } : {};
}
