// The e2e scenarios every CLI goes through, parameterised by what differs per CLI (how the mock
// makes it ask for permission, what its dialog offers). Each <cli>.test.ts names the tests and
// calls these; each scenario starts its own mock and agent(s) and leaves cleanup to cleanupE2E().

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { MOCK_USAGE } from '../support/mock-model-server.mjs';
import {
  BIN,
  artifact,
  chromeIn,
  defer,
  framed,
  getJson,
  getTask,
  measureIdleLag,
  modelTurns,
  postJson,
  report,
  screenText,
  send,
  startAgent,
  startMock,
  status,
  turnOf,
  userTexts,
  waitFor,
  waitForState,
  waitForTurn,
  START_MS,
  TURN_MS,
  type Cli,
} from './harness.js';

export interface CliSpec {
  cli: Cli;
  /** The mock directive that makes this CLI's shell tool run `cmd` behind its permission dialog. */
  dialogDirective: (cmd: string) => string;
  /** The dialog's choices, in order, as the CLI words them. */
  choiceLabels: RegExp[];
  /** What the CLI sends the model for a pasted tab (Claude Code expands tabs; the others keep them). */
  pastedTab: string;
  /**
   * How the CLI's screen shows a model answer once it is fully drawn, so what a reply read off
   * the screen holds. Default: as sent. OpenCode renders markdown: `[x]` (a reference link)
   * shows as `x`, but only once its highlighter has run: until then (seconds, under load) the
   * text shows as sent, so a reply read off its screen may hold either form.
   */
  shown?: (modelText: string) => string;
}

/** Every form in which the CLI's screen may show a model answer: as sent, and rendered. */
const shownForms = (spec: CliSpec, text: string) => [...new Set([text, spec.shown ? spec.shown(text) : text])];

export const SPECS: Record<Cli, CliSpec> = {
  claude: {
    cli: 'claude',
    dialogDirective: (cmd) => `[[sh: ${cmd}]]`,
    choiceLabels: [/^Yes$/, /^Yes, and always allow/, /^No$/],
    // Seen with 2.1.197: a tab in a bracketed paste reaches the model as four spaces.
    pastedTab: '    ',
  },
  codex: {
    cli: 'codex',
    // Codex runs plain commands in its sandbox with no dialog; only an escalation request asks.
    dialogDirective: (cmd) => `[[escalate: ${cmd}]]`,
    choiceLabels: [/^Yes, proceed/, /^Yes, and don't ask again/, /^No, and tell Codex/],
    pastedTab: '\t',
  },
  gemini: {
    cli: 'gemini',
    dialogDirective: (cmd) => `[[sh: ${cmd}]]`,
    choiceLabels: [/^Allow once$/, /^Allow for this session$/, /^No, suggest changes/],
    pastedTab: '\t',
  },
  opencode: {
    cli: 'opencode',
    // prepareOpencodeHome sets `permission.bash = "ask"`; by default OpenCode runs commands unasked.
    dialogDirective: (cmd) => `[[sh: ${cmd}]]`,
    choiceLabels: [/^Allow once$/, /^Allow always$/, /^Reject$/],
    pastedTab: '\t',
    // Seen on 1.18.33: `[From: a (a)] [REPLY EXPECTED] x` shows as `From: a (a) REPLY EXPECTED x`.
    shown: (text) => text.replace(/\[([^[\]]*)\]/g, '$1'),
  },
  copilot: {
    cli: 'copilot',
    dialogDirective: (cmd) => `[[sh: ${cmd}]]`,
    choiceLabels: [/^Yes$/, /^Yes, and don't ask again/, /^No, and tell Copilot what to do differently/],
    // Seen: Copilot CLI expands a pasted tab to four spaces, as Claude Code does.
    pastedTab: '    ',
  },
};

/** 1. Start-up: READY, and the start-up instruction delivered, answered and its task completed. */
export async function startupScenario(spec: CliSpec): Promise<void> {
  const mock = await startMock();
  const t0 = Date.now();
  const agent = await startAgent(spec.cli, mock);
  const took = Date.now() - t0;
  expect(took).toBeLessThan(START_MS);
  const firstReady = agent.statusChanges().find((c) => c.to === 'READY');
  expect(firstReady, 'a STARTING -> READY status change in the log').toBeTruthy();

  const { body } = await getJson(`${agent.endpoint}/tasks?limit=50`);
  const boot = (body as any[]).filter((t) => t.metadata?.kind === 'bootstrap');
  expect(boot).toHaveLength(1);
  expect(boot[0].status).toBe('completed');
  expect(boot[0].metadata.response_mode).toBe('silent');
  // The model really got it: a turn whose user text names this agent.
  const seen = userTexts(spec.cli, mock).filter((t) => t.includes(agent.agentId));
  expect(seen.length).toBe(1);
  expect(seen[0]).toMatch(/^A2A: \[SYNAPSE\] You are agent synapse-/);
  const st = await status(agent);
  expect(st.ready_for_messages).toBe(true);
  expect(['READY', 'DONE']).toContain(st.status);
  report({ kind: 'startup', cli: spec.cli, spawnToReadyMs: firstReady!.at - t0, spawnToTakingMessagesMs: took });
}

/** 2. A text turn: completed, the artifact is exactly the model's answer, no TUI chrome. */
export async function textTurnScenario(spec: CliSpec): Promise<void> {
  const mock = await startMock();
  const agent = await startAgent(spec.cli, mock);
  const text = 'hello from the e2e suite, please answer';
  const task = await send(agent, text);
  const done = await waitForState(agent, task.id);
  expect(done.status).toBe('completed');
  const answer = artifact(done);
  expect(chromeIn(answer), `chrome in the answer:\n${answer}`).toEqual([]);
  expect(answer).toBe(`MOCK: ${framed(text)}`);
  expect(done.metadata.reply_source).toBe('output');
  expect(done.receipt.state).toBe('answered');
  const turn = await waitForTurn(spec.cli, mock, (t) => t === framed(text));
  await measureIdleLag(agent, turn, 'text turn');
}

/**
 * Token usage (issue 20 §3): the CLI records the mock's usage for the turn in its own session
 * files, the agent reads it after the turn, and `synapse history stats --json` shows exactly the
 * mock's numbers: one text turn is one model response. Only the Anthropic protocol carries a
 * cache write (`cache_creation_input_tokens`); the others report none.
 */
export async function usageScenario(spec: CliSpec): Promise<void> {
  const mock = await startMock();
  const agent = await startAgent(spec.cli, mock, { env: { SYNAPSE_HISTORY_ENABLED: 'true' } });
  const task = await send(agent, 'count my tokens, please');
  expect((await waitForState(agent, task.id)).status).toBe('completed');
  const stats = await waitFor(
    () => {
      const r = spawnSync(process.execPath, [BIN, 'history', 'stats', '--json'], { env: agent.env, cwd: agent.home.cwd, encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`history stats failed (${r.status}): ${r.stderr}`);
      const s = JSON.parse(r.stdout);
      return s.agents.find((a: any) => a.agent_id === agent.agentId)?.usage ? s : null;
    },
    TURN_MS,
    "the turn's usage in history stats",
  );
  const usage = stats.agents.find((a: any) => a.agent_id === agent.agentId).usage;
  expect({
    input_tokens: usage.input_tokens,
    output_tokens: usage.output_tokens,
    cache_read_tokens: usage.cache_read_tokens,
    cache_write_tokens: usage.cache_write_tokens,
    tasks: usage.tasks,
  }).toEqual({
    input_tokens: MOCK_USAGE.input,
    output_tokens: MOCK_USAGE.output,
    cache_read_tokens: MOCK_USAGE.cacheRead,
    cache_write_tokens: spec.cli === 'claude' ? MOCK_USAGE.cacheWrite : 0,
    tasks: 1,
  });
  expect(stats.usage).toMatchObject({ input_tokens: MOCK_USAGE.input, output_tokens: MOCK_USAGE.output, tasks: 1 });
  report({ kind: 'usage', cli: spec.cli, usage });
}

/** 3. One multi-line message with shell-special and non-ASCII text arrives intact, as one message. */
export async function multilineScenario(spec: CliSpec): Promise<void> {
  const mock = await startMock();
  const agent = await startAgent(spec.cli, mock);
  // Under the long-message threshold (200 chars), so it goes in as one paste, not a file pointer.
  const text = [
    'first line with "double" and \'single\' quotes',
    'backticks `uname -a` and $(rm -rf /tmp/nope) and ${HOME}',
    '\tindented by a tab\tand another',
    'non-ASCII: café, naïve, 日本語, Ωμέγα, €5 — done',
  ].join('\n');
  expect(text.length).toBeLessThan(200);
  const before = modelTurns(mock).length;
  const task = await send(agent, text);
  const done = await waitForState(agent, task.id);
  expect(done.status).toBe('completed');
  const turns = modelTurns(mock).slice(before);
  // Exactly one model turn for it, holding every line as sent (tabs as the CLI passes them on).
  expect(turns.map((r) => turnOf(spec.cli, r).userText)).toEqual([framed(text).replace(/\t/g, spec.pastedTab)]);
  expect(artifact(done)).toContain('MOCK: A2A: first line with "double"');
}

function permissionTurnText(spec: CliSpec, file: string): string {
  return `please run it ${spec.dialogDirective(`touch ${file} && echo hi`)}`;
}

async function untilDialog(spec: CliSpec, agent: Awaited<ReturnType<typeof startAgent>>, taskId: string): Promise<any> {
  const t = await waitForState(agent, taskId, ['input_required', 'completed', 'failed', 'canceled']);
  expect(t.status, `the task went ${t.status}, not input_required:\n${await screenText(agent)}`).toBe('input_required');
  const choices = t.metadata.permission?.choices as Array<{ key: string; label: string }>;
  expect(choices.map((c) => c.key)).toEqual(['1', '2', '3']);
  spec.choiceLabels.forEach((re, i) => expect(choices[i]!.label).toMatch(re));
  expect(t.metadata.permission.prompt).toBeTruthy();
  expect((await status(agent)).status).toBe('WAITING');
  return t;
}

/** 4a. A tool turn approved over HTTP: the command ran, the model got its output, the task completed. */
export async function approveScenario(spec: CliSpec): Promise<void> {
  const mock = await startMock();
  const agent = await startAgent(spec.cli, mock);
  const file = 'approved-by-e2e.txt';
  const task = await send(agent, permissionTurnText(spec, file));
  await untilDialog(spec, agent, task.id);
  expect(fs.existsSync(path.join(agent.home.cwd, file))).toBe(false);

  const res = await postJson(`${agent.endpoint}/tasks/${task.id}/respond`, { choice: 'approve' });
  expect(res.status).toBe(200);
  expect(res.body.choice.key).toBe('1');
  const done = await waitForState(agent, task.id);
  expect(done.status).toBe('completed');
  expect(fs.existsSync(path.join(agent.home.cwd, file))).toBe(true);
  const followUp = modelTurns(mock).find((r) => (turnOf(spec.cli, r).toolOutput ?? '').includes('hi'));
  expect(followUp, 'the model got the tool output').toBeTruthy();
  const answer = artifact(done);
  expect(answer).toContain('MOCK: tool said hi');
  expect(chromeIn(answer), `chrome in the answer:\n${answer}`).toEqual([]);
  await measureIdleLag(agent, followUp!, 'tool turn (approved)');
}

/**
 * 4c. A command that fails (issue 20 §4): the turn completes with the model's answer whole, and
 * the task carries the error the CLI's screen showed (the shell's `command not found`).
 */
export async function failingCommandScenario(spec: CliSpec): Promise<void> {
  const mock = await startMock();
  const agent = await startAgent(spec.cli, mock);
  const task = await send(agent, `please run it ${spec.dialogDirective('frobnicate-synapse-e2e --all')}`);
  const t = await waitForState(agent, task.id, ['input_required', 'completed', 'failed', 'canceled']);
  if (t.status === 'input_required') expect((await postJson(`${agent.endpoint}/tasks/${task.id}/respond`, { choice: 'approve' })).status).toBe(200);
  const done = await waitForState(agent, task.id);
  const screen = await screenText(agent);
  expect(done.status, screen).toBe('completed');
  expect(artifact(done)).toContain('MOCK: tool said');
  expect(done.error, `no error read off the screen:\n${screen}`).toMatchObject({ code: 'COMMAND_NOT_FOUND', data: { command: 'frobnicate-synapse-e2e' } });
}

/** 4b. The same turn denied over HTTP: nothing ran, the task ended, and the CLI takes the next message. */
export async function denyScenario(spec: CliSpec): Promise<void> {
  const mock = await startMock();
  const agent = await startAgent(spec.cli, mock);
  const file = 'denied-by-e2e.txt';
  const task = await send(agent, permissionTurnText(spec, file));
  await untilDialog(spec, agent, task.id);
  const turnsBefore = modelTurns(mock).length;

  const res = await postJson(`${agent.endpoint}/tasks/${task.id}/respond`, { choice: 'deny' });
  expect(res.status).toBe(200);
  expect(res.body.choice.key).toBe('3');
  const ended = await waitForState(agent, task.id);
  expect(['completed', 'canceled']).toContain(ended.status);
  expect(fs.existsSync(path.join(agent.home.cwd, file))).toBe(false);
  // Nothing more went to the model for the denied call.
  expect(modelTurns(mock).length).toBe(turnsBefore);
  await waitFor(async () => ['READY', 'DONE'].includes((await status(agent)).status), TURN_MS, 'READY again');

  const next = await send(agent, 'after the denial');
  const nextDone = await waitForState(agent, next.id);
  expect(nextDone.status).toBe('completed');
  expect(artifact(nextDone)).toBe(`MOCK: ${framed('after the denial')}`);
}

/** 5. Priority 5 interrupts a long turn within 2 s, and the urgent message is handled on its own. */
export async function priorityScenario(spec: CliSpec): Promise<void> {
  const mock = await startMock();
  const agent = await startAgent(spec.cli, mock);
  const slow = await send(agent, 'a long turn [[wait: 30]]');
  const longReq = await waitForTurn(spec.cli, mock, (t) => t.includes('a long turn'));
  await waitForState(agent, slow.id, ['working']);
  expect(longReq.endedAt).toBeNull();

  const t0 = Date.now();
  const urgent = await send(agent, 'urgent: stop and answer this', { priority: 5 });
  await waitFor(() => longReq.endedAt !== null, 10_000, 'the long request to be aborted');
  const interruptMs = longReq.endedAt! - t0;
  report({ kind: 'interrupt', cli: spec.cli, priority5ToAbortMs: interruptMs });
  expect(interruptMs).toBeLessThan(2_000);

  const done = await waitForState(agent, urgent.id);
  expect(done.status).toBe('completed');
  expect(artifact(done)).toBe(`MOCK: ${framed('urgent: stop and answer this')}`);
  expect((await getTask(agent, slow.id)).status).toBe('canceled');
  // The urgent message went to the model on its own, not glued to the interrupted one.
  const urgentTurns = userTexts(spec.cli, mock).filter((t) => t.includes('urgent: stop'));
  expect(urgentTurns).toEqual([framed('urgent: stop and answer this')]);
  // And the interrupted turn was not sent again.
  expect(userTexts(spec.cli, mock).filter((t) => t.includes('a long turn'))).toHaveLength(1);
}

/**
 * 6. Agent to agent through two real CLIs: the sender's model runs `synapse send <receiver> … --wait`
 * with its own shell tool (auto-approved), the receiver's CLI answers, and the answer comes back
 * as the tool's output.
 */
export async function agentToAgentScenario(spec: CliSpec, receiverCli: Cli = spec.cli): Promise<void> {
  const mock = await startMock();
  const registryDir = fs.mkdtempSync(path.join(os.tmpdir(), 'synapse-e2e-registry-'));
  defer('shared registry', () => fs.rmSync(registryDir, { recursive: true, force: true }));
  const [receiver, sender] = await Promise.all([
    startAgent(receiverCli, mock, { registryDir, env: { SYNAPSE_REPLY_GRACE: '1' } }),
    startAgent(spec.cli, mock, { registryDir, autoApprove: true }),
  ]);
  const question = 'ping from the sender';
  const cmd = `node ${BIN} send ${receiver.agentId} "${question}" --wait --force`;
  const task = await send(sender, `ask the other agent [[sh: ${cmd}]]`);
  const done = await waitForState(sender, task.id, undefined, 90_000);
  expect(done.status).toBe('completed');

  // The receiver's CLI got the framed message from the sender and its model answered it.
  const asked = `A2A: [From: ${sender.agentId} (${sender.agentId})] [REPLY EXPECTED] ${question}`;
  expect(userTexts(receiverCli, mock)).toContain(asked);
  const { body } = await getJson(`${receiver.endpoint}/tasks?limit=50`);
  const received = (body as any[]).find((t) => t.metadata?.sender?.sender_id === sender.agentId);
  expect(received?.status).toBe('completed');
  // The receiver's reply is what its screen showed: the answer as sent, or as rendered (shownForms).
  const reply = artifact(received);
  expect(shownForms(SPECS[receiverCli], `MOCK: ${asked}`)).toContain(reply);

  // The sender's shell tool printed the receiver's answer, and its model saw it.
  const toolTurn = modelTurns(mock).find((r) => (turnOf(spec.cli, r).toolOutput ?? '').includes(reply));
  expect(toolTurn, "the sender model got the other agent's answer as tool output").toBeTruthy();
  // Up to the sender's id: a long answer may wrap on the sender's screen after it.
  const said = shownForms(spec, `MOCK: tool said ${reply}`).map((s) => s.slice(0, s.indexOf(sender.agentId) + sender.agentId.length));
  expect(
    said.some((s) => artifact(done).includes(s)),
    `one of ${JSON.stringify(said)} in ${JSON.stringify(artifact(done))}`,
  ).toBe(true);
}
