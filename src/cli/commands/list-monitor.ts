import { listColumns } from '../../config/settings.js';
import type { AgentRow } from '../../monitor/columns.js';
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

/** The monitor's Enter/j and K: `synapse jump` and `synapse kill` on the row's agent, their output as one line. */
function monitorActions(io: CommandIo): MonitorActions {
  return {
    jump: async (row: AgentRow) => {
      const c = capturing(io);
      const { jumpCommand } = await import('./team-cli.js');
      await jumpCommand(row.entry.agent_id, c.io);
      return c.said() || `jumped to ${row.entry.agent_id}`;
    },
    kill: async (row: AgentRow) => {
      const c = capturing(io);
      await killCommand(row.entry.agent_id, {}, c.io);
      return c.said() || `stopped ${row.entry.agent_id}`;
    },
  };
}

/**
 * `synapse list`: on a terminal the live monitor (src/monitor/, guides/monitor.md); without one,
 * or with `--json` or `--plain`, the table (or JSON) printed once.
 */
export async function listCommand(flags: { json?: boolean; plain?: boolean }, io: CommandIo): Promise<void> {
  if (flags.json || flags.plain || !io.isTerminal('stdout') || !io.isTerminal('stdin')) return listAgents(flags, io);
  const { runMonitor } = await import('../../monitor/run.js');
  await runMonitor({ env: io.env, columns: listColumns(io.cwd, io.env, 'monitor'), actions: monitorActions(io) });
}
