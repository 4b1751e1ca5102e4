import type http from 'node:http';
import type https from 'node:https';
import { SynapseError } from '../errors.js';
import type { ServerTls } from '../config/tls.js';
import type { Env } from '../config/paths.js';
import type { Profile } from '../profiles/types.js';
import type { FileRegistry } from '../registry/registry.js';
import { portRangeSetting } from '../config/env-setting.js';
import { httpDate } from '../clock.js';
// node:http is loaded by the claim, not with this module: a command that shares its chunk (the
// bundle's agent-start.js, scripts/bundle.mjs) but starts no agent does not pay for it.
import { requireCjs } from '../require-cjs.js';

const STARTING_BODY = JSON.stringify({ error: { code: 'agent_not_ready', message: 'the agent is starting' } });

/** Answers requests that arrive in the few milliseconds before the app is attached. */
function startingListener(_req: http.IncomingMessage, res: http.ServerResponse): void {
  res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' });
  res.end(STARTING_BODY);
}

/**
 * Every response's `Date` header, set before the app answers (its headers are merged with it).
 * Left to node, it is written by a Date made into text, which sets up ICU's time zones in V8: ~1
 * MiB of RSS every agent kept from its first answer on (guides/agent-runtime.md, "Memory").
 */
let stamp = { second: Number.NaN, text: '' };
function stampDate(_req: http.IncomingMessage, res: http.ServerResponse): void {
  const now = Date.now();
  const second = Math.floor(now / 1000);
  if (second !== stamp.second) stamp = { second, text: httpDate(now) };
  res.setHeader('date', stamp.text);
}

function tryListen(server: http.Server | https.Server, port: number, host: string): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => {
      server.off('listening', onListening);
      if (err.code === 'EADDRINUSE' || err.code === 'EACCES') resolve(false);
      else reject(err);
    };
    const onListening = () => {
      server.off('error', onError);
      resolve(true);
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen({ port, host, exclusive: true });
  });
}

export interface PortClaim {
  /** An https server when the agent serves over TLS (`SYNAPSE_USE_HTTPS`). */
  server: http.Server | https.Server;
  port: number;
  /** Replace the interim 503 responder once the real app is attached. */
  attached(): void;
}

/**
 * The port is claimed by binding, never by guessing: the first port of the range that has no
 * live registry entry and binds on `host`. Agents started at the same instant cannot collide,
 * because only one of them can bind a port.
 */
export async function claimPort(opts: {
  range: { first: number; last: number };
  host: string;
  registry: FileRegistry;
  port?: number;
  type: string;
  tls?: ServerTls | null;
}): Promise<PortClaim> {
  const server = opts.tls ? await httpsServer(opts.tls) : (requireCjs('node:http') as typeof http).createServer(startingListener);
  server.prependListener('request', stampDate);
  const claim = (port: number): PortClaim => ({ server, port, attached: () => server.off('request', startingListener) });
  if (opts.port !== undefined) {
    if (await tryListen(server, opts.port, opts.host)) return claim(opts.port);
    throw new SynapseError('port_range_full', `port ${opts.port} on ${opts.host} is in use; pick another with --port or leave it out`);
  }
  const live = opts.registry.listLive();
  const held = new Set(live.map((e) => e.port));
  for (let port = opts.range.first; port <= opts.range.last; port++) {
    if (held.has(port)) continue;
    if (await tryListen(server, port, opts.host)) return claim(port);
  }
  const holders = live.filter((e) => e.port >= opts.range.first && e.port <= opts.range.last);
  const list = holders.length
    ? holders.map((e) => `${e.agent_id}${e.name ? ` (${e.name})` : ''} pid ${e.pid}`).join(', ')
    : 'other programs (no Synapse agents)';
  throw new SynapseError(
    'port_range_full',
    `every port of the ${opts.type} range ${opts.range.first}-${opts.range.last} is taken, held by: ${list}. Stop one (synapse stop <target>) or pass --port.`,
  );
}

/** node:https (and TLS with it) loads only for an agent that serves over TLS. */
async function httpsServer(tls: ServerTls): Promise<https.Server> {
  const https = await import('node:https');
  try {
    return https.createServer({ cert: tls.cert, key: tls.key }, startingListener);
  } catch (err) {
    throw new SynapseError(
      'invalid_input',
      `SYNAPSE_TLS_CERT/SYNAPSE_TLS_KEY do not make a TLS server: ${(err as Error).message}; give the PEM certificate and its own private key`,
    );
  }
}

/** The profile's range, or `SYNAPSE_PORT_RANGE_<TYPE>=first-last` (e.g. when 8100-8109 is taken). */
export function portRange(profile: Profile, env: Env): { first: number; last: number } {
  return portRangeSetting(env, profile.id) ?? profile.ports;
}
