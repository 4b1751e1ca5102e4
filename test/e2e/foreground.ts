// Foreground: `synapse claude` in a tmux pane, a human half-way through typing a prompt, and a
// message arriving over HTTP at the same time.

import { expect } from 'vitest';
import {
  BIN,
  artifact,
  getTask,
  holdsFor,
  prepareAgentHome,
  send,
  startMock,
  startTmux,
  status,
  userTexts,
  waitFor,
  waitForState,
  framed,
  START_MS,
  TURN_MS,
  type TmuxPane,
} from './harness.js';
import { freePort } from '../support/synapse.js';

/** Claude's input row in a tmux capture: the last `❯` row (the echoed prompts sit above it). */
function claudeInputRow(lines: string[]): string | null {
  for (let i = lines.length - 1; i >= 0; i--) {
    const row = (lines[i] ?? '').replace(/\u00a0/g, ' ');
    if (/^❯( |$)/.test(row)) return row.slice(1).trim();
  }
  return null;
}

function show(pane: TmuxPane): string {
  return pane.capture().join('\n');
}

export async function foregroundScenario(): Promise<void> {
  const mock = await startMock();
  const { home, env } = await prepareAgentHome('claude', mock);
  const port = await freePort();
  const pane = startTmux([process.execPath, BIN, 'claude', '--port', String(port)], { env, cwd: home.cwd, cols: 120, rows: 40 });
  const agent = { endpoint: `http://127.0.0.1:${port}` };

  await waitFor(async () => (await status(agent).catch(() => null))?.ready_for_messages === true, START_MS, 'synapse claude in tmux to take messages').catch((err: Error) => {
    throw new Error(`${err.message}\n--- pane ---\n${show(pane)}`);
  });
  await waitFor(() => claudeInputRow(pane.capture()) === '', TURN_MS, 'an empty input row');

  const half = 'half typed prompt, not finished';
  pane.type(half);
  await waitFor(() => claudeInputRow(pane.capture()) === half, 10_000, 'the half-typed text in the input row').catch((err: Error) => {
    throw new Error(`${err.message}\n--- pane ---\n${show(pane)}`);
  });

  const message = 'delivered over HTTP while the human types';
  const task = await send(agent, message);
  // Longer than the 2 s "the human typed recently" window, so the hold comes from the unsent text.
  await holdsFor(
    4_000,
    async () => {
      const row = claudeInputRow(pane.capture());
      if (row !== half) return `the input row changed to ${JSON.stringify(row)}\n${show(pane)}`;
      const state = (await getTask(agent, task.id)).status.state;
      if (state !== 'submitted') return `the task went ${state} while the human had unsent text`;
      const sent = userTexts('claude', mock).filter((t) => t.includes('half typed') || t.includes('delivered over HTTP'));
      if (sent.length) return `the model got ${JSON.stringify(sent)}`;
      return null;
    },
    'the delivery waits for the human',
  );

  pane.sendKeys('C-u');
  const done = await waitForState({ endpoint: agent.endpoint, output: () => show(pane) }, task.id);
  expect(done.status.state).toBe('completed');
  expect(artifact(done)).toBe(`MOCK: ${framed(message)}`);
  // The model got the delivery alone, never the half-typed text.
  expect(userTexts('claude', mock).filter((t) => t.includes('half typed') || t.includes('delivered over HTTP'))).toEqual([framed(message)]);
  await waitFor(() => claudeInputRow(pane.capture()) === '', TURN_MS, 'an empty input row after the turn');
  expect(show(pane)).toContain(`MOCK: ${framed(message)}`);
}
