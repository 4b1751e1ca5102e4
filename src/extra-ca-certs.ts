import fs from 'node:fs';
import type * as Tls from 'node:tls';
import { requireCjs } from './require-cjs.js';

/**
 * `NODE_EXTRA_CA_CERTS`, moved aside for a Synapse process's own start.
 *
 * Node 20 reads that file, and builds its whole root certificate store, before any script runs:
 * with the system's CA bundle (a common setting, and this machine's) that is ~30-40 ms and ~2 MiB
 * for every `synapse` process, though most never open a TLS connection. So bin/synapse.js's
 * shebang starts node with it empty (which node ignores) and its value under this name, and a
 * Synapse process that starts another (`synapse start`'s agent, a pane, the pre-write hook) does
 * the same ({@link deferExtraCaCerts}). The process puts it back into its environment first thing
 * ({@link restoreExtraCaCerts}), so the CLI it wraps and everything else it starts inherit it as
 * set, and reads the file itself before its own first TLS connection ({@link trustExtraCaCerts}).
 */
export const DEFERRED_CA_VAR = 'SYNAPSE_EXTRA_CA';

/** The file this process started without, until {@link trustExtraCaCerts} has read it. */
let deferredFile: string | undefined;
let trusted = false;

/** First thing in `main`: `NODE_EXTRA_CA_CERTS` back where the launcher found it. */
export function restoreExtraCaCerts(env: NodeJS.ProcessEnv = process.env): void {
  if (!(DEFERRED_CA_VAR in env)) return;
  const file = env[DEFERRED_CA_VAR];
  delete env[DEFERRED_CA_VAR];
  // The shebang's empty one stands for "unset": children see it as the user left it.
  if (env.NODE_EXTRA_CA_CERTS === '') delete env.NODE_EXTRA_CA_CERTS;
  // Set anyway (`node bin/synapse.js` under a launcher's environment): node has read it itself.
  if (!file || env.NODE_EXTRA_CA_CERTS) return;
  env.NODE_EXTRA_CA_CERTS = file;
  deferredFile = file;
}

/** The environment for a Synapse process we start: the same, `NODE_EXTRA_CA_CERTS` moved aside. */
export function deferExtraCaCerts(env: Record<string, string | undefined>): Record<string, string | undefined> {
  const { NODE_EXTRA_CA_CERTS: file, ...rest } = env;
  return file ? { ...rest, [DEFERRED_CA_VAR]: file } : env;
}

/**
 * The same for a command line that starts a Synapse process where no environment can be given (a
 * pane's command: tmux and zellij start it in their own): `env` empties the variable and passes
 * its value under {@link DEFERRED_CA_VAR}. Empty when `env` does not set it.
 */
export function deferExtraCaCertsArgv(env: Record<string, string | undefined>): string[] {
  const file = env.NODE_EXTRA_CA_CERTS;
  return file ? ['/usr/bin/env', 'NODE_EXTRA_CA_CERTS=', `${DEFERRED_CA_VAR}=${file}`] : [];
}

/**
 * The options of `tls.createSecureContext` (Node 20's `configSecureContext` and the context's
 * constructor): two calls that agree on these get equal contexts.
 */
const CONTEXT_OPTIONS = [
  'allowPartialTrustChain',
  'ciphers',
  'ecdhCurve',
  'honorCipherOrder',
  'maxVersion',
  'minVersion',
  'secureOptions',
  'secureProtocol',
  'sessionTimeout',
  'sigalgs',
] as const;
/** Options that make a context its caller's own (a server's keys and tickets): never shared. */
const OWN_OPTIONS = [
  'cert',
  'clientCertEngine',
  'crl',
  'dhparam',
  'key',
  'passphrase',
  'pfx',
  'privateKeyEngine',
  'privateKeyIdentifier',
  'sessionIdContext',
  'ticketKeys',
] as const;

/** The cache key of a context that can be shared, or null. */
function sharedKey(options: Tls.SecureContextOptions): string | null {
  const o = options as Record<string, unknown>;
  if (OWN_OPTIONS.some((name) => o[name] !== undefined)) return null;
  const parts: string[] = [];
  for (const name of CONTEXT_OPTIONS) {
    const value = o[name];
    if (value === undefined) continue;
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') return null;
    parts.push(`${name}=${String(value)}`);
  }
  return parts.join('\n');
}

/**
 * Before this process's first TLS connection as a client (an https peer or webhook, an A2A push,
 * an external agent, a canvas link, a PostgreSQL server; a TLS listener verifies no client
 * certificates, so the extra roots change nothing there): when it started without
 * `NODE_EXTRA_CA_CERTS`, its certificates now extend the default roots, as node would have done at
 * start. Every TLS client (fetch, https, pg, gRPC) gets its context from
 * `tls.createSecureContext`, so that is where they go in: a context without an explicit `ca`
 * (which replaces the default roots, the extra ones included, as in Node) gets them added. Parsing a bundle costs ~17 ms a context, so a
 * client's context is made once per set of options and shared, as Node shares its root store.
 * Does nothing when there is nothing deferred, and after its first call.
 */
export function trustExtraCaCerts(): void {
  if (trusted || !deferredFile) return;
  trusted = true;
  let pem: string;
  try {
    pem = fs.readFileSync(deferredFile, 'utf8');
  } catch (err) {
    // Node's own words when it cannot read the file at start; it goes on with the default roots.
    process.emitWarning(`Ignoring extra certs from \`${deferredFile}\`, load failed: ${(err as Error).message}`);
    return;
  }
  const tls = requireCjs('node:tls') as typeof Tls;
  const create = tls.createSecureContext;
  const shared = new Map<string, Tls.SecureContext>();
  tls.createSecureContext = function createSecureContextWithExtraCa(options?: Tls.SecureContextOptions): Tls.SecureContext {
    if (options?.ca !== undefined && options.ca !== null) return create(options);
    const key = sharedKey(options ?? {});
    const known = key === null ? undefined : shared.get(key);
    if (known) return known;
    const context = create(options);
    (context.context as { addCACert(pem: string): void }).addCACert(pem);
    if (key !== null) shared.set(key, context);
    return context;
  };
}

/** {@link trustExtraCaCerts} when `url` is one TLS would carry. */
export function trustExtraCaCertsFor(url: string | URL): void {
  if (/^(https|wss):$/.test(new URL(url).protocol)) trustExtraCaCerts();
}
