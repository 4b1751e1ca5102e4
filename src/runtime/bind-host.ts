import { envSetting } from '../config/env-setting.js';
import type { Env } from '../config/paths.js';
import { isLoopbackHost } from '../server/host-check.js';

/** The address an agent binds: `--host`, else `SYNAPSE_HOST`, else 127.0.0.1. */
export function bindHost(flag: string | undefined, env: Env): string {
  return flag?.trim() || envSetting(env, 'SYNAPSE_HOST')?.trim() || '127.0.0.1';
}

/** The address peers and the registry use: a wildcard bind (`0.0.0.0`, `::`) answers on loopback too. */
export function endpointHost(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '[::]') return '127.0.0.1';
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

/** The warning for a bind beyond loopback without API keys (issue 15 §1); null when there is nothing to say. */
export function exposureWarning(host: string, env: Env): string | null {
  if (isLoopbackHost(host) || envSetting(env, 'SYNAPSE_AUTH_ENABLED')) return null;
  return (
    `warning: binding ${host} exposes this agent to the network with auth off: anyone who can reach the port can type into the CLI. ` +
    'Set SYNAPSE_AUTH_ENABLED=true and SYNAPSE_API_KEYS (guides/security.md), or bind 127.0.0.1.'
  );
}
