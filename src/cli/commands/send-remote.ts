import type { SenderInfo } from '../../agent-api/task.js';
import { envSetting } from '../../config/env-setting.js';
import type { Env } from '../../config/paths.js';
import { SynapseError } from '../../errors.js';
import { isLoopbackHost } from '../../server/host-check.js';
import type { HostedEntry } from '../../registry/host.js';
import { identityMismatch, projectIdentity } from '../../registry/project-identity.js';
import { label } from './send-common.js';

/*
 * A target on another host (issue 22 §3), found in a PostgreSQL store's registry table: it must
 * have registered an address this host can reach, and it must work on this project (by git
 * remote and branch, since its paths are another machine's).
 */

type Remote = HostedEntry & { reachable?: boolean; project?: { remote: string | null; branch: string | null } };

/** Refuses a remote agent that registered only a loopback address: its 127.0.0.1 is not ours (it could reach one of our agents instead). */
export function checkReachable(target: Remote): void {
  if (target.reachable !== false) return;
  throw new SynapseError(
    'agent_unreachable',
    `${label(target)} runs on host ${target.host} and listens on loopback only (${target.endpoint}): it cannot be reached from here. ` +
      'Start it there with --host <address> (and auth on), or set SYNAPSE_ADVERTISE_HOST; guides/teams-across-machines.md.',
    { target: target.agent_id, host: target.host },
  );
}

/** The working-directory check for a remote agent: same git remote and branch, else --force. */
export function checkRemoteProject(target: Remote, senderDir: string): void {
  const why = identityMismatch(projectIdentity(senderDir), target.project ?? { remote: null, branch: null });
  if (why === null) return;
  throw new SynapseError(
    'working_dir_mismatch',
    `${label(target)} runs on host ${target.host} in ${target.working_dir}, on ${why} (this side: ${senderDir}). Use --force to send anyway.`,
    { target: target.agent_id, host: target.host },
  );
}

/**
 * Who sent a message to an agent on another host. The sending agent's endpoint goes along only
 * when that host can reach it: an advertised address (`SYNAPSE_ADVERTISE_HOST`, the agent's
 * environment is its commands' too) or one that is not loopback. A loopback endpoint on the
 * other host is that host's own agent on that port, so it is left out (an answer then stays on
 * the task: `--wait` and `synapse history` still get it), and the sender is told why.
 */
export function remoteSender(meta: { sender?: SenderInfo }, target: HostedEntry, env: Env, warn: (line: string) => void): { sender?: SenderInfo } {
  const endpoint = meta.sender?.sender_endpoint;
  if (!target.remote || !endpoint || !meta.sender) return meta;
  const advertised = Boolean(envSetting(env, 'SYNAPSE_ADVERTISE_HOST')?.trim());
  if (advertised || !isLoopbackHost(new URL(endpoint).hostname)) return meta;
  const { sender_endpoint: _left, ...rest } = meta.sender;
  warn(
    `warning: ${label(target)} on host ${target.host} cannot post an answer back to ${endpoint} (loopback, not advertised): ` +
      'use --wait, or run the sending agent with --host <address> or SYNAPSE_ADVERTISE_HOST\n',
  );
  return { sender: rest };
}
