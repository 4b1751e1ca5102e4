import fs from 'node:fs';
import { SynapseError, isSynapseError } from '../../errors.js';
import { describeExit, exitRecordOfPid } from '../../registry/exit-record.js';
import { paneOfEnv } from '../../team/panes.js';
import { writePaneResult, type PaneSpec } from '../../team/spawn.js';
import type { CommandIo } from '../io.js';

/** Multiplexer variables of this pane: they win over the spawner's environment. */
const PANE_VARS = ['TMUX', 'TMUX_PANE', 'ZELLIJ', 'ZELLIJ_SESSION_NAME', 'ZELLIJ_PANE_ID', 'TERM', 'COLUMNS', 'LINES'];

function readSpec(file: string): PaneSpec {
  let spec: PaneSpec;
  try {
    spec = JSON.parse(fs.readFileSync(file, 'utf8')) as PaneSpec;
  } catch (err) {
    throw new SynapseError('usage', `__pane takes the spec file \`synapse spawn\` writes (${(err as Error).message}); run \`synapse spawn\` instead`);
  } finally {
    // It holds the spawner's environment: read once, then gone.
    fs.rmSync(file, { force: true });
  }
  return spec;
}

/**
 * `synapse __pane <spec file>`, run in the pane `synapse spawn` opened: the agent as
 * `synapse <profile>` in this pane, with the spawner's environment, its pane and spawning parent
 * in its registry entry. It tells the spawner its agent id once registered, or why it could not
 * start, through the spec's result file.
 */
export async function runPaneAgent(file: string, io: CommandIo): Promise<void> {
  const spec = readSpec(file);
  const paneEnv = Object.fromEntries(PANE_VARS.filter((k) => io.env[k] !== undefined).map((k) => [k, io.env[k]]));
  const env = { ...spec.env, ...paneEnv };
  const pane = paneOfEnv(spec.kind, env);
  const report = (result: Parameters<typeof writePaneResult>[1]) => {
    try {
      writePaneResult(spec.result, result);
    } catch {
      // the spawner stopped waiting and removed its directory
    }
  };
  const { runForeground } = await import('./run-agent.js');
  let code = 1;
  try {
    code = await runForeground(
      spec.agent.profile,
      spec.agent.cliArgs,
      { ...spec.agent.flags, setup: false },
      // The spawner's environment is this agent's whole environment (the pane's own is not).
      { ...io, env, baseEnv: env },
      { extras: { ...spec.agent.extras, ...(pane ? { pane } : {}) }, spawned: true, onStarted: (agentId) => report({ agent_id: agentId }) },
    );
  } catch (err) {
    report({ error: { code: isSynapseError(err) ? err.code : 'internal', message: (err as Error).message } });
    throw err;
  }
  // The CLI gave up while starting: the spawner is still waiting, and says why.
  const exit = exitRecordOfPid(process.pid, env);
  if (exit?.during_startup)
    report({
      error: {
        code: 'cli_exited',
        message: `${exit.agent_type} exited (${describeExit(exit)}); its last lines on screen:\n${exit.last_lines.map((l) => `  | ${l}`).join('\n')}`,
      },
    });
  process.stdout.write('', () => process.exit(code));
  await new Promise(() => undefined);
}
