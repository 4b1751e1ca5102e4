import { envSetting } from '../../config/env-setting.js';
import { listColumns } from '../../config/settings.js';
import { withHost, type AgentRow } from '../../monitor/columns.js';
import type { RemoteFeed } from '../../monitor/source.js';
import { hostName } from '../../registry/host.js';
import { storeTarget } from '../../store/store-url.js';
import type { MonitorActions } from '../../monitor/view.js';
import type { CommandIo } from '../io.js';
import { killCommand, listAgents } from './lifecycle.js';

/** A CommandIo whose output is kept (a command run from the monitor must not write over its screen). */
function capturing(io: CommandIo): { io: CommandIo; said: () => string } {
  let text = '';
  const keep = (t: string) => void (text += t);
  return {
    io: { ...io, out: keep, err: keep },
    said: () =>
      text
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean)
        .join('; '),
  };
}

/** Another host's agent (the registry table): jump and kill act on this host's only; null for ours. */
function onAnotherHost(row: AgentRow, what: string): string | null {
  const e = row.entry as AgentRow['entry'] & { remote?: unknown; host?: unknown };
  return e.remote === true ? `${e.agent_id} runs on host ${String(e.host)}: ${what} there` : null;
}

/** The monitor's Enter/j and K: `synapse jump` and `synapse kill` on the row's agent, their output as one line. */
function monitorActions(io: CommandIo): MonitorActions {
  return {
    jump: async (row: AgentRow) => {
      const elsewhere = onAnotherHost(row, 'jump to its pane');
      if (elsewhere) return elsewhere;
      const c = capturing(io);
      const { jumpCommand } = await import('./team-cli.js');
      await jumpCommand(row.entry.agent_id, c.io);
      return c.said() || `jumped to ${row.entry.agent_id}`;
    },
    kill: async (row: AgentRow) => {
      const elsewhere = onAnotherHost(row, 'stop it');
      if (elsewhere) return elsewhere;
      const c = capturing(io);
      await killCommand(row.entry.agent_id, {}, c.io);
      return c.said() || `stopped ${row.entry.agent_id}`;
    },
  };
}

/** How often the monitor reads the registry table: every heartbeat (SYNAPSE_HEARTBEAT_MS), at least once a second. */
const MIN_REMOTE_POLL_MS = 1_000;

/**
 * With a PostgreSQL store the monitor also shows other hosts' agents (the registry table, read on
 * a poll); null otherwise, or when the store setting cannot be read (this host's agents only then).
 */
function remoteFeed(io: CommandIo): RemoteFeed | null {
  let target;
  try {
    target = storeTarget(io.cwd, io.env);
  } catch {
    return null;
  }
  if (target.backend !== 'postgres') return null;
  const url = target.url;
  const host = hostName(io.env);
  return {
    host,
    everyMs: Math.max(MIN_REMOTE_POLL_MS, envSetting(io.env, 'SYNAPSE_HEARTBEAT_MS')),
    read: async () => {
      const [{ remoteAgents }, { storeLocks }] = await Promise.all([import('../../store/discovery.js'), import('../../store/editing.js')]);
      const agents = await remoteAgents(url, host);
      // A store that did not answer the first question is not asked a second time in this poll.
      const locks = agents.error ? null : await storeLocks(io.cwd, io.env).catch(() => null);
      return { ...agents, locks };
    },
  };
}

/**
 * `synapse list`: on a terminal the live monitor (src/monitor/, guides/monitor.md); without one,
 * or with `--json` or `--plain`, the table (or JSON) printed once.
 */
export async function listCommand(flags: { json?: boolean; plain?: boolean; waiting?: boolean }, io: CommandIo): Promise<void> {
  if (flags.json || flags.plain || flags.waiting || !io.isTerminal('stdout') || !io.isTerminal('stdin')) return listAgents(flags, io);
  const { runMonitor } = await import('../../monitor/run.js');
  const remote = remoteFeed(io);
  await runMonitor({
    env: io.env,
    columns: withHost(listColumns(io.cwd, io.env, 'monitor'), remote !== null),
    actions: monitorActions(io),
    ...(remote ? { remote } : {}),
  });
}
