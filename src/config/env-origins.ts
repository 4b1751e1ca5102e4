import { SynapseError } from '../errors.js';
import type { Env } from './env.js';

/**
 * One web origin as a browser sends it in `Origin` (`https://host[:port]`, lower case, no
 * default port), or null when `raw` is not an http(s) origin: no path, query, fragment or
 * credentials, no wildcard, not the opaque `null` origin.
 */
function serializedOrigin(raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null; // not a URL: the caller reports it with the variable's name
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (url.username || url.password || url.search || url.hash) return null;
  if (url.pathname !== '/' || !/^https?:\/\/[^/?#]+\/?$/i.test(raw)) return null;
  return url.origin;
}

/**
 * A comma-separated list of exact web origins from the environment (`SYNAPSE_CORS_ORIGINS`).
 * Unset or blank is an empty list; blank entries are skipped. Each entry must be an http(s)
 * origin such as `https://dash.example.com:8443`, or it is an `invalid_input` error naming the
 * variable and the entry: a wildcard or a URL with a path is refused, never widened or ignored.
 */
export function originListSetting(env: Env, name: string): string[] {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return [];
  const origins: string[] = [];
  for (const entry of raw.split(',').map((e) => e.trim())) {
    if (entry === '') continue;
    const origin = serializedOrigin(entry);
    if (origin === null) {
      throw new SynapseError(
        'invalid_input',
        `${name} must be a comma-separated list of origins like https://host[:port] (no path, no wildcard), got "${entry}"`,
      );
    }
    if (!origins.includes(origin)) origins.push(origin);
  }
  return origins;
}
