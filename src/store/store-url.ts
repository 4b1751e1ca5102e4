import { envSetting } from '../config/env-setting.js';
import { loadSettings } from '../config/settings.js';
import type { Env } from '../config/paths.js';
import { SynapseError } from '../errors.js';
import { redactUrl } from '../redact.js';

/**
 * Which backend holds the shared store (issue 22): `sqlite:` (the default: one file per concern
 * under the project's `.synapse/`) or a PostgreSQL database (`postgres://…`) that a team across
 * machines shares. Chosen by SYNAPSE_STORE_URL, else settings `store.url` (a project's only once
 * trusted, like its env: a foreign database would receive the board).
 */
export type StoreTarget =
  { backend: 'sqlite' } | { backend: 'postgres'; url: string; /** The URL with its password hidden, for messages and logs. */ shown: string };

export function parseStoreUrl(raw: string | undefined): StoreTarget {
  const url = raw?.trim() ?? '';
  if (url === '' || url === 'sqlite:' || url === 'sqlite') return { backend: 'sqlite' };
  if (/^postgres(ql)?:\/\//i.test(url)) {
    try {
      new URL(url);
    } catch {
      throw new SynapseError('invalid_input', `store URL ${redactUrl(url)} is not a valid URL (postgres://user:password@host:5432/database)`);
    }
    return { backend: 'postgres', url, shown: redactUrl(url) };
  }
  throw new SynapseError('invalid_input', `store URL ${redactUrl(url)} is neither sqlite: nor postgres://…; see guides/teams-across-machines.md`);
}

/** The store of the project at `projectDir`, as the settings and environment (the effective one) say. */
export function storeTarget(projectDir: string, env: Env): StoreTarget {
  const direct = envSetting(env, 'SYNAPSE_STORE_URL')?.trim();
  // Without the variable, the settings files decide (the CLI passes an env with trusted project env blocks applied).
  return parseStoreUrl(direct || loadSettings(projectDir, env).store.url);
}
