import type { Env } from '../config/paths.js';
import { apiKeyHeaders } from '../config/auth-keys.js';
import { liveAgents } from '../registry/lookup.js';
import { sameProject } from '../registry/project.js';
import { requestJson } from './http-json.js';
import { peerTls } from './peer-tls.js';

export interface NotifyResult {
  /** Agent ids that accepted the notice. */
  notified: string[];
  /** Agent ids that were live in this project but did not accept it (ignored otherwise). */
  failed: string[];
}

/**
 * Sends a one-line notice to every live agent of the project of `workingDir` (except
 * `exclude`), as a silent message on its own endpoint's `/tasks/send`, so agents learn about
 * e.g. a new shared note without being asked to answer. Each post has its own timeout;
 * failures are counted, never thrown.
 */
export async function notifyPeers(options: { env: Env; workingDir: string; text: string; exclude?: string | null; timeoutMs?: number }): Promise<NotifyResult> {
  const targets = liveAgents(options.env).filter((e) => e.agent_id !== options.exclude && sameProject(e.working_dir, options.workingDir));
  const body = {
    message: { role: 'user', parts: [{ type: 'text', text: options.text }] },
    metadata: { response_mode: 'silent' },
  };
  const headers = apiKeyHeaders(options.env);
  const tls = peerTls(options.env);
  const results = await Promise.all(
    targets.map(async (e) => {
      try {
        const res = await requestJson(`${e.endpoint}/tasks/send`, { body, timeoutMs: options.timeoutMs ?? 3000, headers, tls });
        return { id: e.agent_id, ok: res.status >= 200 && res.status < 300 };
      } catch {
        // Unreachable (gone since its last heartbeat, or hung): counted as failed, by design.
        return { id: e.agent_id, ok: false };
      }
    }),
  );
  return { notified: results.filter((r) => r.ok).map((r) => r.id), failed: results.filter((r) => !r.ok).map((r) => r.id) };
}
