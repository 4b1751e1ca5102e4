import os from 'node:os';
import type { FastifyInstance } from 'fastify';
import { SynapseError } from '../errors.js';

/**
 * The `Host` check (DNS rebinding): a page on `http://evil.example:8100` whose name an attacker
 * re-points at the user's machine reaches the agent with `Host: evil.example:8100`. A request may
 * name only the agent's own addresses (for the address it binds) or a name the user allowed
 * (`SYNAPSE_ALLOWED_HOSTS`); anything else gets 403 `forbidden_host` before a route runs.
 */

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];
const WILDCARDS = new Set(['0.0.0.0', '::', '[::]']);

/** The name of a Host header: lower case, no port, IPv6 in brackets as sent. */
function hostName(host: string): string {
  const h = host.trim().toLowerCase();
  return h.startsWith('[') ? h.slice(0, h.indexOf(']') + 1) : h.replace(/:\d*$/, '');
}

/** An address as a Host header names it: IPv6 in brackets. */
const asHost = (address: string): string => (address.includes(':') && !address.startsWith('[') ? `[${address}]` : address).toLowerCase();

export function isLoopbackHost(bind: string): boolean {
  const name = hostName(asHost(bind));
  return LOOPBACK_NAMES.includes(name) || /^127\.\d+\.\d+\.\d+$/.test(name);
}

/** Every address of this machine (a wildcard bind answers on all of them) and its host name. */
function machineNames(): string[] {
  const addresses = Object.values(os.networkInterfaces()).flatMap((list) => (list ?? []).map((i) => asHost(i.address.replace(/%.*$/, ''))));
  return [...addresses, os.hostname().toLowerCase()];
}

/**
 * The names a request's `Host` may carry for an agent bound to `bind`: loopback names for a
 * loopback bind; the bound address and the machine's name for another address; every address of
 * the machine for a wildcard (`0.0.0.0`, `::`); plus `extra` (`SYNAPSE_ALLOWED_HOSTS`).
 */
export function allowedHostNames(bind: string, extra: readonly string[] = []): Set<string> {
  const names = new Set(extra.map((n) => hostName(n)));
  if (isLoopbackHost(bind) || WILDCARDS.has(bind)) for (const n of LOOPBACK_NAMES) names.add(n);
  if (WILDCARDS.has(bind)) for (const n of machineNames()) names.add(n);
  else if (!isLoopbackHost(bind)) names.add(asHost(bind)).add(os.hostname().toLowerCase());
  return names;
}

/** A Host check for `allowedHostNames`; 127.0.0.0/8 passes whenever loopback does. */
export function hostCheck(names: ReadonlySet<string>): (host: string) => boolean {
  const loopback = names.has('127.0.0.1');
  return (host) => {
    const name = hostName(host);
    return names.has(name) || (loopback && /^127\.\d+\.\d+\.\d+$/.test(name));
  };
}

/** `SYNAPSE_ALLOWED_HOSTS`: comma-separated host names (a port is ignored); a URL or a wildcard is refused. */
export function parseAllowedHosts(raw: string | undefined): string[] {
  const names = (raw ?? '')
    .split(',')
    .map((n) => n.trim())
    .filter((n) => n.length > 0);
  for (const n of names) {
    if (!/^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(:\d+)?$/i.test(n)) {
      throw new SynapseError(
        'invalid_input',
        `SYNAPSE_ALLOWED_HOSTS must be comma-separated host names like box.lan or 192.168.1.5 (no scheme, path or wildcard), got "${n}"`,
      );
    }
  }
  return names.map(hostName);
}

/** Installs the check as an `onRequest` hook: the first thing every request meets. */
export function installHostCheck(app: FastifyInstance, allowed: (host: string) => boolean): void {
  app.addHook('onRequest', async (req) => {
    const host = req.headers.host ?? '';
    if (!allowed(host)) {
      throw new SynapseError(
        'forbidden_host',
        `Host "${host}" is not a name of this agent: add it to SYNAPSE_ALLOWED_HOSTS if you reach the agent by that name`,
      );
    }
  });
}
