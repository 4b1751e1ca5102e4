import fs from 'node:fs';
import path from 'node:path';
import { gitRepo } from './git-repo.js';
import { tempHome } from './synapse.js';

/** One "host" of a team across machines, simulated on this machine (issue 22's tests). */
export interface SimulatedHost {
  name: string;
  env: NodeJS.ProcessEnv;
  /** The project checkout on this host: a git repository with `origin` = gitRemote, or a plain directory. */
  project: string;
  cleanup: () => void;
}

/**
 * A host as the two-hosts tests see one: its own HOME and registry, its own host name, the shared
 * PostgreSQL store, auth on with `key` (loopback callers need it too), a short heartbeat so expiry
 * takes seconds, and loopback advertised as its network address so its agents are reachable.
 */
export function simulatedHost(name: string, storeUrl: string, options: { key: string; gitRemote?: string }): SimulatedHost {
  const t = tempHome();
  const env: NodeJS.ProcessEnv = {
    ...t.env,
    SYNAPSE_STORE_URL: storeUrl,
    SYNAPSE_HOST_NAME: name,
    SYNAPSE_ADVERTISE_HOST: '127.0.0.1',
    SYNAPSE_HEARTBEAT_MS: '300',
    SYNAPSE_AUTH_ENABLED: 'true',
    SYNAPSE_API_KEYS: options.key,
    SYNAPSE_ALLOW_LOCALHOST: 'false',
  };
  const project = path.join(t.home, 'app');
  if (options.gitRemote) gitRepo(project, env)(project, 'remote', 'add', 'origin', options.gitRemote);
  else fs.mkdirSync(project, { recursive: true });
  return { name, env, project, cleanup: t.cleanup };
}
