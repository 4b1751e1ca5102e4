import fs from 'node:fs';
import type http from 'node:http';
import type { RequestOptions } from 'node:https';
import { envSetting } from '../config/env-setting.js';
import type { Env } from '../config/paths.js';
import { SynapseError } from '../errors.js';
import { trustExtraCaCerts } from '../extra-ca-certs.js';

/**
 * What a client trusts for an https peer besides the system's CAs: the certificates of
 * `SYNAPSE_TLS_CA` and, when this user serves agents over TLS, their own certificate
 * (`SYNAPSE_TLS_CERT`: a self-signed one is its own CA), so that `synapse` commands reach the
 * user's own agents with nothing more to set.
 */
export interface PeerTls {
  /** PEM text, each a file's whole content (a file may hold several certificates). */
  extraCa: string[];
}

function readPem(file: string, variable: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new SynapseError('invalid_input', `${variable}: cannot read ${file} (${(err as Error).message}); point it at a PEM certificate file`);
  }
}

/** The extra trust `env` asks for, or undefined when it asks for none (only the system's CAs). */
export function peerTls(env: Env): PeerTls | undefined {
  const ca = envSetting(env, 'SYNAPSE_TLS_CA');
  const own = envSetting(env, 'SYNAPSE_USE_HTTPS') ? envSetting(env, 'SYNAPSE_TLS_CERT') : undefined;
  const extraCa = [...(ca ? [readPem(ca, 'SYNAPSE_TLS_CA')] : []), ...(own && own !== ca ? [readPem(own, 'SYNAPSE_TLS_CERT')] : [])];
  return extraCa.length ? { extraCa } : undefined;
}

/**
 * The request function for `url`: node:http, or node:https (and TLS with it, ~9 ms to load: only
 * an https peer costs it) verifying the peer against the system's CAs plus `tls.extraCa`.
 */
export async function transportFor(url: string | URL, tls: PeerTls | undefined): Promise<{ request: typeof http.request; options: RequestOptions }> {
  if (new URL(url).protocol !== 'https:') return { request: (await import('node:http')).request, options: {} };
  const https = await import('node:https');
  trustExtraCaCerts();
  if (!tls) return { request: https.request, options: {} };
  const { rootCertificates } = await import('node:tls');
  return { request: https.request, options: { ca: [...rootCertificates, ...tls.extraCa] } };
}

const UNTRUSTED = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'CERT_HAS_EXPIRED',
]);

/** What to do about a TLS failure, appended to the error's message; empty for any other error. */
export function tlsHint(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  if (code === undefined || !UNTRUSTED.has(code)) return '';
  return ` (the peer's certificate is not trusted here: set SYNAPSE_TLS_CA to a PEM file of its certificate or CA; guides/security-tls.md)`;
}
