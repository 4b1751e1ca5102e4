// Scenarios for record-screens.mjs: each drives one CLI through a timeline and captures screens
// with the status the timeline proves (see Recording.capture in screen-recorder.mjs).

import { sleep } from './screen-recorder.mjs';

const ESC = '\x1b';
const CTRL_C = '\x03';
const CTRL_U = '\x15';
const DOWN = '\x1b[B';
const UP = '\x1b[A';

/** One text turn, saved as a reply-extraction pair. */
async function textTurn(rec, p, name, text, reply) {
  await rec.waitIdle(600);
  const before = rec.screenText();
  const since = await rec.submit(text, p.submitGapMs);
  await rec.waitTurnDone(since);
  await rec.saveTurn(name, before, rec.screenText(), text, { reply });
  return since;
}

/** Clear whatever is left in the input box (Ctrl-U clears the line in all three CLIs). */
async function clearInput(rec) {
  rec.s.write(CTRL_U);
  await sleep(300);
  await rec.waitIdle(400);
}

/** Approve or deny one permission dialog and record the screens around it. */
async function toolTurn(rec, p, n, how) {
  await rec.waitIdle(600);
  const before = rec.screenText();
  const since = await rec.submit(p.toolText(n), p.submitGapMs);
  await rec.waitDialog(since, p.dialogRe);
  const turnsBefore = rec.turnsSince(since).length;
  if (how === 'approve') {
    await rec.capture('waiting', 'permission-dialog', { since, ansi: true, note: 'tool call sent by the mock, no tool result yet' });
    rec.s.write(DOWN);
    await sleep(400);
    await rec.capture('waiting', 'permission-dialog-second-option-highlighted', { since, note: 'after one Down arrow' });
    rec.s.write(UP);
    await sleep(400);
    rec.s.write(p.approveKey);
    await rec.waitTurnDone(since);
    await rec.capture('ready', 'after-tool-approved', { note: `approved with '${p.approveKey}'; follow-up answer fully sent` });
    await rec.saveTurn(`tool-approved`, before, rec.screenText(), p.toolText(n), { reply: `MOCK: tool said hi-${n}` });
    return;
  }
  const key = how === 'deny' ? p.denyKey : ESC;
  const label = how === 'deny' ? `'${p.denyKey}'` : 'Esc';
  await rec.capture('waiting', `permission-dialog-before-${how}`, { since, note: `dialog; next key ${label}` });
  rec.s.write(key);
  await sleep(1500);
  await rec.waitIdle(800);
  const followUps = rec.turnsSince(since).length - turnsBefore;
  if (followUps > 0 && rec.turnsSince(since).at(-1).answer === 'text') {
    // The CLI sent the tool result (or a rejection) back to the model: record what that looks like.
    await rec.waitTurnDone(since);
  }
  const note = `${how} with ${label}; model requests after the key: ${followUps}`;
  rec.log(`  [${rec.cli}] ${note}`);
  await rec.capture('ready', `after-tool-${how === 'deny' ? 'denied' : 'dialog-escape'}`, { note });
}

/** Slow turn: [[wait]] then a slowly streamed multi-line answer. */
async function slowTurn(rec, p) {
  const text = 'slow turn [[wait: 3]] [[lines: 6]]';
  await rec.waitIdle(600);
  const before = rec.screenText();
  const since = await rec.submit(text, p.submitGapMs);
  await rec.waitTurnRequest(since);
  await sleep(300);
  await rec.capture('processing', 'slow-wait-early', { since, ansi: true, note: 'mock holding the answer ([[wait: 3]]), ~0.3 s in' });
  await sleep(1200);
  await rec.capture('processing', 'slow-wait-mid', { since, note: 'mock holding the answer, ~1.5 s in' });
  await rec.waitStreaming(3400);
  await rec.capture('processing', 'slow-streaming', { since, note: 'mock streaming deltas every 200 ms' });
  await sleep(800);
  await rec.capture('processing', 'slow-streaming-later', { since, note: 'mock still streaming' });
  await rec.waitTurnDone(since);
  await rec.capture('ready', 'after-slow-turn', { note: 'slow answer fully sent, screen quiet' });
  const lines = Array.from({ length: 6 }, (_, i) => `MOCK line ${i + 1} of 6`).join('\n');
  await rec.saveTurn('slow-lines', before, rec.screenText(), text, { reply: `MOCK: ${text}\n${lines}` });
}

/** Text typed (not submitted) while the CLI works; then submitted after the turn. */
async function typedWhileBusy(rec, p) {
  const since = await rec.submit('busy turn [[wait: 3]]', p.submitGapMs);
  await rec.waitTurnRequest(since);
  await sleep(500);
  await rec.s.paste('typed while busy');
  await sleep(500);
  await rec.capture('processing', 'typed-while-working', { since, note: 'user text in the input box while the mock holds the answer' });
  await rec.waitTurnDone(since);
  await rec.capture('ready', 'after-turn-with-unsent-input', { note: 'turn over; the typed text is still in the input box' });
  const since2 = rec.server.requests.length;
  await sleep(p.submitGapMs);
  rec.s.write('\r');
  await rec.waitTurnDone(since2);
  await rec.capture('ready', 'after-submitting-held-input', { note: 'the held text submitted with CR and answered' });
}

/** A second message submitted while the first is still being answered. */
async function submitWhileBusy(rec, p) {
  const since = await rec.submit('first of two [[wait: 3]]', p.submitGapMs);
  await rec.waitTurnRequest(since);
  await sleep(500);
  await rec.s.paste('second while busy [[wait: 2]]');
  await sleep(p.submitGapMs);
  rec.s.write('\r');
  await sleep(600);
  await rec.capture('processing', 'second-message-submitted-while-working', { since, note: 'CR sent for a 2nd message while the 1st is in flight' });
  // Wait until both have been answered (or the CLI merged them): quiet for 2 s with nothing in flight.
  await rec.waitTurnDone(since, { quietMs: 2000, timeoutMs: 40_000 });
  const asked = rec
    .turnsSince(since)
    .map((r) => r.answer)
    .join(',');
  await rec.capture('ready', 'after-second-message', { note: `model turns after the 1st submit: ${asked}` });
  await clearInput(rec);
}

/** Interrupt a working turn with `key`. */
async function interrupt(rec, p, key, name) {
  const since = await rec.submit(`interrupt me ${name} [[wait: 8]]`, p.submitGapMs);
  const req = await rec.waitTurnRequest(since);
  await sleep(1000);
  await rec.capture('processing', `before-${name}-interrupt`, { since, note: 'mock holding an 8 s answer' });
  rec.s.write(key);
  await sleep(1000);
  await rec.waitIdle(600, 5000);
  const aborted = req.endedAt !== null && req.endedAt - req.at < 7000;
  await rec.capture('ready', `after-${name}-interrupt`, { note: `request aborted by the CLI: ${aborted}` });
  rec.log(`  [${rec.cli}] ${name}: request aborted after ${req.endedAt ? req.endedAt - req.at : 'never'} ms`);
  return aborted;
}

export async function mainScenario(rec, p) {
  const readyAt = await rec.recordStartup(p.readyRe);
  rec.readyAt = readyAt;
  await sleep(p.settleAfterReadyMs);
  await rec.waitIdle(800);
  await rec.capture('ready', 'startup-idle', { ansi: true, note: `idle prompt first seen at ${readyAt} ms` });

  // A text turn, with the typed-but-unsent screen in between.
  const before = rec.screenText();
  await rec.s.paste('hello from synapse');
  await sleep(500);
  await rec.capture('ready', 'typed-not-submitted', { note: 'text pasted into the input box, no CR yet' });
  const since = rec.server.requests.length;
  rec.s.write('\r');
  await rec.waitTurnDone(since);
  await rec.capture('ready', 'after-text-turn', { ansi: true, note: 'answer fully sent, screen quiet' });
  await rec.saveTurn('text-hello', before, rec.screenText(), 'hello from synapse', { reply: 'MOCK: hello from synapse' });

  const multi = 'give me lines [[lines: 5]]';
  const lines = Array.from({ length: 5 }, (_, i) => `MOCK line ${i + 1} of 5`).join('\n');
  await textTurn(rec, p, 'text-multiline', multi, `MOCK: ${multi}\n${lines}`);
  await rec.capture('ready', 'after-multiline-turn', { note: 'five-line answer' });

  await slowTurn(rec, p);
  await typedWhileBusy(rec, p);

  await toolTurn(rec, p, 1, 'approve');
  await toolTurn(rec, p, 2, 'deny');
  await toolTurn(rec, p, 3, 'escape');

  if (p.plainToolText) {
    const s2 = await rec.submit(p.plainToolText(4), p.submitGapMs);
    await rec.waitTurnDone(s2);
    await rec.capture('ready', 'after-sandboxed-tool-no-dialog', { note: 'tool ran in the sandbox without a dialog' });
  }

  // A tool that runs for 3 s after approval: the CLI works while no model request is open.
  {
    const s3 = await rec.submit(p.slowToolText(5), p.submitGapMs);
    await rec.waitDialog(s3, p.dialogRe);
    rec.s.write(p.approveKey);
    await sleep(1200);
    const pending = rec.turnsSince(s3).at(-1)?.answer === 'tool';
    if (pending) {
      await rec.capture('processing', 'tool-running-after-approval', {
        force: true,
        note: 'approved; the 3 s command is running, its result not yet sent to the mock',
      });
    }
    await rec.waitTurnDone(s3);
    await rec.capture('ready', 'after-slow-tool', { note: 'tool result answered' });
  }

  await submitWhileBusy(rec, p);

  await interrupt(rec, p, ESC, 'esc');
  await clearInput(rec);
  await rec.capture('ready', 'after-clearing-input', { note: 'Ctrl-U after the interrupt' });
  await interrupt(rec, p, CTRL_C, 'ctrl-c');
  await clearInput(rec);
  await sleep(2500); // let any "press again to exit" hint expire

  await longOutputAndResizes(rec, p);
}

/**
 * A 150-line answer (only its tail fits the viewport), a slowly streamed 20-line one, idle resizes
 * to 80x24, 100x30 and 120x40, and a resize while the model holds its answer; ends at 120x40.
 */
export async function longOutputAndResizes(rec, p) {
  // Long answer: the viewport shows only its tail.
  {
    const s4 = await rec.submit('long output [[lines: 150]]', p.submitGapMs);
    await rec.waitTurnDone(s4, { timeoutMs: 60_000 });
    await rec.capture('ready', 'after-long-output', { ansi: true, note: p.longOutputNote ?? '150-line answer; scrollback holds the rest' });
    const s5 = await rec.submit('long slow output [[wait: 1]] [[lines: 20]]', p.submitGapMs);
    await rec.waitStreaming(2500);
    await sleep(1500);
    await rec.capture('processing', 'long-output-streaming', { since: s5, note: 'a 20-line answer being streamed slowly' });
    await rec.waitTurnDone(s5, { timeoutMs: 60_000 });
    await rec.capture('ready', 'after-long-slow-output', {});
  }

  // Resizes.
  for (const [c, r] of [
    [80, 24],
    [100, 30],
    [120, 40],
  ]) {
    rec.s.resize(c, r);
    await sleep(1000);
    await rec.waitIdle(800);
    await rec.capture('ready', `resized-to-${c}x${r}`, { note: `idle, resized from the previous size to ${c}x${r}` });
  }
  {
    const s6 = await rec.submit('resize while busy [[wait: 4]]', p.submitGapMs);
    await rec.waitTurnRequest(s6);
    await sleep(800);
    rec.s.resize(90, 30);
    await sleep(800);
    await rec.capture('processing', 'resized-while-working', { since: s6, note: 'resized to 90x30 while the mock holds the answer' });
    await rec.waitTurnDone(s6);
    await rec.capture('ready', 'after-turn-resized-90x30', {});
    rec.s.resize(120, 40);
    await sleep(800);
  }
}

export async function smallScenario(rec, p) {
  const readyAt = await rec.recordStartup(p.readyRe, { max: 2 });
  await sleep(p.settleAfterReadyMs);
  await rec.waitIdle(800);
  await rec.capture('ready', 'startup-idle', { note: `idle prompt first seen at ${readyAt} ms` });
  await textTurn(rec, p, 'text-hello', 'hello from synapse', 'MOCK: hello from synapse');
  await rec.capture('ready', 'after-text-turn', {});
  const since = await rec.submit('slow turn [[wait: 3]]', p.submitGapMs);
  await rec.waitTurnRequest(since);
  await sleep(1000);
  await rec.capture('processing', 'slow-wait-mid', { since, note: 'mock holding the answer, ~1 s in' });
  await rec.waitTurnDone(since);
  await rec.capture('ready', 'after-slow-turn', {});
  const s2 = await rec.submit(p.toolText(1), p.submitGapMs);
  await rec.waitDialog(s2, p.dialogRe);
  await rec.capture('waiting', 'permission-dialog', { since: s2, ansi: true, note: 'tool call sent, no result yet' });
  rec.s.write(p.approveKey);
  await rec.waitTurnDone(s2);
  await rec.capture('ready', 'after-tool-approved', {});
  const s3 = await rec.submit(p.toolText(2), p.submitGapMs);
  await rec.waitDialog(s3, p.dialogRe);
  await rec.capture('waiting', 'permission-dialog-before-deny', { since: s3 });
  rec.s.write(p.denyKey);
  await sleep(1500);
  await rec.waitIdle(800);
  await rec.capture('ready', 'after-tool-denied', {});
  const s4 = await rec.submit('long output [[lines: 60]]', p.submitGapMs);
  await rec.waitTurnDone(s4);
  await rec.capture('ready', 'after-long-output', {});
}

/** Claude with --dangerously-skip-permissions (root needs IS_SANDBOX=1): tools run without a dialog. */
export async function claudeBypassScenario(rec, p) {
  // In this mode the footer reads "⏵⏵ bypass permissions on (shift+tab to cycle)" instead of "? for shortcuts".
  await rec.recordStartup(/bypass permissions on/, { max: 0 });
  await sleep(p.settleAfterReadyMs);
  await rec.waitIdle(800);
  await rec.capture('ready', 'startup-idle', { note: '--dangerously-skip-permissions' });
  const s1 = await rec.submit(p.slowToolText(1), p.submitGapMs);
  await rec.waitTurnRequest(s1, (r) => r.answer === 'tool' && r.endedAt !== null);
  await sleep(1200);
  if (rec.turnsSince(s1).at(-1)?.answer === 'tool') {
    await rec.capture('processing', 'tool-running-no-dialog', { force: true, note: 'the 3 s command runs without asking' });
  }
  await rec.waitTurnDone(s1);
  await rec.capture('ready', 'after-tool-no-dialog', {});
}

/** Text pasted 200 ms after spawn, before the CLI is up: what becomes of it. */
export async function earlyInputScenario(rec, p) {
  await sleep(Math.max(0, 200 - rec.ms()));
  await rec.s.paste('early text');
  // With text in the box Claude hides "? for shortcuts", so look for the input row itself.
  await rec.recordStartup(p.inputRowRe, { max: 3 });
  await sleep(p.settleAfterReadyMs);
  await rec.waitIdle(800);
  await rec.capture('ready', 'after-start', { note: "'early text' was pasted 200 ms after spawn (no CR)" });
  const since = rec.server.requests.length;
  await sleep(p.submitGapMs);
  rec.s.write('\r');
  try {
    await rec.waitTurnDone(since, { timeoutMs: 8000 });
    const sent = rec.turnsSince(since).map((r) => JSON.stringify(r.body).includes('early text'));
    await rec.capture('ready', 'after-cr', { note: `CR once the prompt was up; request contained 'early text': ${sent.join(',')}` });
  } catch {
    await rec.capture('ready', 'after-cr', { note: 'CR once the prompt was up; no model request followed within 8 s' });
  }
}
