import fs from 'node:fs';
import { SynapseError } from '../errors.js';
import { envSetting } from './env-setting.js';
import type { Env } from './env.js';

/** The agent's certificate and key (PEM text), when it serves over TLS. */
export interface ServerTls {
  cert: string;
  key: string;
}

function readPem(env: Env, variable: 'SYNAPSE_TLS_CERT' | 'SYNAPSE_TLS_KEY', what: string): string {
  const file = envSetting(env, variable);
  if (!file)
    throw new SynapseError('invalid_input', `SYNAPSE_USE_HTTPS is on but ${variable} is not set: point it at the ${what} (a PEM file; guides/security-tls.md)`);
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new SynapseError('invalid_input', `${variable}: cannot read ${file} (${(err as Error).message}); point it at the ${what} (a PEM file)`);
  }
}

/**
 * `SYNAPSE_USE_HTTPS`: the certificate and key of `SYNAPSE_TLS_CERT`/`SYNAPSE_TLS_KEY`, read
 * once at start-up (an error names the variable), or null when TLS is off.
 */
export function serverTls(env: Env): ServerTls | null {
  if (!envSetting(env, 'SYNAPSE_USE_HTTPS')) return null;
  return { cert: readPem(env, 'SYNAPSE_TLS_CERT', "agent's certificate"), key: readPem(env, 'SYNAPSE_TLS_KEY', "certificate's private key") };
}
