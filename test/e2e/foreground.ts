// Foreground: `synapse <cli>` in a tmux pane, a human half-way through typing a prompt, and a
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
  type Cli,
  type TmuxPane,
} from './harness.js';
import { freePort } from '../support/synapse.js';

/**
 * The text in the CLI's input row of a tmux capture ('' when empty), read independently of the
 * profiles under test: the last prompt row (the echoed prompts sit above it).
 */
const INPUT_ROW: Record<Exclude<Cli, 'opencode'>, { prompt: RegExp; placeholder?: RegExp }> = {
  claude: { prompt: /^❯( |$)/ },
  // The echoed prompts in the transcript are indented (` ❯ text`); the input row is not.
  copilot: { prompt: /^❯( |$)/ },
  codex: { prompt: /^› /, placeholder: /^Ask Codex to do anything$/ },
  gemini: { prompt: /^ ?> /, placeholder: /^Type your message or @path\/to\/file$/ },
};

/** OpenCode's input box: the `┃` rows above its `┃  Build · <model>` row, placeholder `Ask anything…`. */
function opencodeInput(lines: string[]): string | null {
  for (let i = lines.length - 1; i > 0; i--) {
    if (!/^\s*┃ {2}Build\b/.test(lines[i] ?? '')) continue;
    const rows: string[] = [];
    for (let j = i - 1; j >= 0 && /^\s*┃/.test(lines[j] ?? ''); j--) rows.unshift((lines[j] ?? '').replace(/^\s*┃/, '').trim());
    const text = rows.filter(Boolean).join(' ');
    return /^Ask anything/.test(text) ? '' : text;
  }
  return null;
}

function inputRow(cli: Cli, lines: string[]): string | null {
  if (cli === 'opencode') return opencodeInput(lines);
  const { prompt, placeholder } = INPUT_ROW[cli];
  for (let i = lines.length - 1; i >= 0; i--) {
    const row = (lines[i] ?? '').replace(/\u00a0/g, ' ');
    if (!prompt.test(row)) continue;
    const text = row.replace(prompt, '').trim();
    return placeholder?.test(text) ? '' : text;
  }
  return null;
}

function show(pane: TmuxPane): string {
  return pane.capture().join('\n');
}

export async function foregroundScenario(cli: Cli): Promise<void> {
  const mock = await startMock();
  const { home, env } = await prepareAgentHome(cli, mock);
  const port = await freePort();
  const pane = startTmux([process.execPath, BIN, cli, '--no-setup', '--port', String(port)], { env, cwd: home.cwd, cols: 120, rows: 40 });
  const agent = { endpoint: `http://127.0.0.1:${port}` };

  await waitFor(async () => (await status(agent).catch(() => null))?.ready_for_messages === true, START_MS, `synapse ${cli} in tmux to take messages`).catch(
    (err: Error) => {
      throw new Error(`${err.message}\n--- pane ---\n${show(pane)}`);
    },
  );
  await waitFor(() => inputRow(cli, pane.capture()) === '', TURN_MS, 'an empty input row');

  const half = 'half typed prompt, not finished';
  pane.type(half);
  await waitFor(() => inputRow(cli, pane.capture()) === half, 10_000, 'the half-typed text in the input row').catch((err: Error) => {
    throw new Error(`${err.message}\n--- pane ---\n${show(pane)}`);
  });

  const message = 'delivered over HTTP while the human types';
  const task = await send(agent, message);
  // Longer than the 2 s "the human typed recently" window, so the hold comes from the unsent text.
  await holdsFor(
    4_000,
    async () => {
      const row = inputRow(cli, pane.capture());
      if (row !== half) return `the input row changed to ${JSON.stringify(row)}\n${show(pane)}`;
      const state = (await getTask(agent, task.id)).status;
      if (state !== 'submitted') return `the task went ${state} while the human had unsent text`;
      const sent = userTexts(cli, mock).filter((t) => t.includes('half typed') || t.includes('delivered over HTTP'));
      if (sent.length) return `the model got ${JSON.stringify(sent)}`;
      return null;
    },
    'the delivery waits for the human',
  );

  pane.sendKeys('C-u');
  const done = await waitForState({ endpoint: agent.endpoint, output: () => show(pane) }, task.id);
  expect(done.status).toBe('completed');
  expect(artifact(done)).toBe(`MOCK: ${framed(message)}`);
  // The model got the delivery alone, never the half-typed text.
  expect(userTexts(cli, mock).filter((t) => t.includes('half typed') || t.includes('delivered over HTTP'))).toEqual([framed(message)]);
  await waitFor(() => inputRow(cli, pane.capture()) === '', TURN_MS, 'an empty input row after the turn');
  expect(show(pane)).toContain(`MOCK: ${framed(message)}`);
}
