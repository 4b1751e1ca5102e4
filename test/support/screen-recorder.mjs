// The machinery behind record-screens.mjs: one recording session = one real CLI under a PTY,
// one mock model server, one fixture directory. Scenarios call capture() with the status the
// CLI really had at that moment, which they know from the timeline (what the mock has sent and
// received), and capture() checks that claim against the mock before it writes anything.

import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { startMockModelServer } from './mock-model-server.mjs';
import { spawnScreen } from './pty-screen.mjs';

export const STATUSES = ['starting', 'ready', 'processing', 'waiting'];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Requests that are model turns (not JSON side calls such as titles, not probes). */
export const isTurn = (r) => r.answer === 'text' || r.answer === 'tool';

export class Recording {
  /**
   * @param {object} o
   * @param {string} o.cli            claude | codex | gemini
   * @param {string} o.outDir         test/fixtures/screens/<cli>/<version>
   * @param {Function} o.prepare      a prepare*Home function from cli-home.mjs
   * @param {object} [o.prepareOptions]
   * @param {number} o.cols
   * @param {number} o.rows
   * @param {string} [o.prefix]       prepended to every case name (e.g. '80x24-')
   * @param {Array} o.manifest        shared list every capture is appended to
   */
  constructor(o) {
    Object.assign(this, o);
    this.prefix = o.prefix ?? '';
    this.log = o.log ?? ((line) => process.stderr.write(`${line}\n`));
  }

  async start() {
    this.server = await startMockModelServer({ log: (l) => this.log(`  [${this.cli}] ${l}`) });
    this.home = await this.prepare({ baseUrl: this.server.url, ...(this.prepareOptions ?? {}) });
    this.s = spawnScreen({
      file: this.home.bin,
      args: [...this.home.args, ...(this.extraArgs ?? [])],
      cwd: this.home.cwd,
      env: this.home.env,
      cols: this.cols,
      rows: this.rows,
    });
    return this;
  }

  async stop() {
    try {
      await this.s?.kill();
    } finally {
      await this.server?.close();
      await this.home?.cleanup();
    }
  }

  ms() {
    return Date.now() - this.s.startedAt;
  }

  /** Model turns since request index `since`. */
  turnsSince(since) {
    return this.server.requests.slice(since).filter(isTurn);
  }

  /** Check that the mock's view of the world agrees with the status we are about to record. */
  verify(status, since) {
    const inflight = this.server.inFlight().filter(isTurn);
    const turns = since === undefined ? [] : this.turnsSince(since);
    switch (status) {
      case 'processing':
        return inflight.length > 0 || (turns.length > 0 && turns.at(-1).answer === 'tool' && this.toolRunning === true) ? null : 'no model response in flight';
      case 'waiting': {
        const last = turns.at(-1);
        if (!last || last.answer !== 'tool' || last.endedAt === null) return 'last model turn is not a finished tool call';
        return null;
      }
      case 'ready':
        return inflight.length === 0 ? null : 'a model response is still in flight';
      default:
        return null;
    }
  }

  /**
   * Save the visible screen as <status>/<case>.txt (and .ansi when asked).
   * @param {string} status one of STATUSES
   * @param {string} name   case name
   * @param {{since?: number, note?: string, ansi?: boolean, force?: boolean}} [opts]
   */
  async capture(status, name, opts = {}) {
    if (!STATUSES.includes(status)) throw new Error(`bad status ${status}`);
    await this.s.flush();
    const problem = opts.force ? null : this.verify(status, opts.since);
    const caseName = `${this.prefix}${name}`;
    if (problem) {
      this.log(`  [${this.cli}] SKIP ${status}/${caseName}: ${problem}`);
      return false;
    }
    const lines = this.s.viewport();
    const dir = join(this.outDir, status);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, `${caseName}.txt`), lines.length ? `${lines.join('\n')}\n` : '');
    if (opts.ansi) await writeFile(join(dir, `${caseName}.ansi`), this.s.rawText());
    this.manifest.push({
      status,
      case: caseName,
      cols: this.s.cols,
      rows: this.s.rows,
      msSinceStart: this.ms(),
      altScreen: this.s.isAltScreen(),
      title: this.s.title(),
      ansi: Boolean(opts.ansi),
      note: opts.note ?? '',
    });
    this.log(`  [${this.cli}] ${status}/${caseName} (${lines.length} rows, t=${this.ms()} ms)`);
    return true;
  }

  /** Save a reply-extraction pair: the screen before submitting, after completion, and the user text. */
  async saveTurn(name, before, after, userText, extra = {}) {
    const dir = join(this.outDir, 'turns', `${this.prefix}${name}`);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'before.txt'), before);
    await writeFile(join(dir, 'after.txt'), after);
    await writeFile(join(dir, 'user.txt'), `${userText}\n`);
    await writeFile(join(dir, 'expected-reply.txt'), `${extra.reply}\n`);
    this.log(`  [${this.cli}] turns/${this.prefix}${name}`);
  }

  screenText() {
    const lines = this.s.viewport();
    return lines.length ? `${lines.join('\n')}\n` : '';
  }

  // ---- driving -------------------------------------------------------------------------

  /** Capture startup frames every `everyMs` until `readyRe` first shows; returns when it does. */
  async recordStartup(readyRe, { everyMs = 50, max = 4, timeoutMs = 30_000 } = {}) {
    const deadline = Date.now() + timeoutMs;
    let saved = 0;
    let last = null;
    while (Date.now() < deadline) {
      await this.s.flush();
      const text = this.s.text();
      if (readyRe.test(text)) return this.ms();
      if (saved < max && text !== last && this.ms() > 50) {
        await this.capture('starting', `startup-${String(saved + 1).padStart(2, '0')}`, {
          note: `before the idle prompt was first drawn (t=${this.ms()} ms)`,
          ansi: saved === 0,
        });
        saved += 1;
        last = text;
      }
      await sleep(everyMs);
    }
    throw new Error(`${this.cli}: ready marker ${readyRe} not seen; screen:\n${this.s.text()}`);
  }

  /** Paste `text` as one bracketed paste, then send CR as a separate write `gapMs` later. */
  async submit(text, gapMs) {
    const since = this.server.requests.length;
    await this.s.paste(text);
    await sleep(gapMs);
    this.s.write('\r');
    return since;
  }

  /** Wait for the first model turn request since `since` (optionally matching `pred`). */
  async waitTurnRequest(since, pred = () => true, timeoutMs = 20_000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const hit = this.turnsSince(since).find(pred);
      if (hit) return hit;
      if (Date.now() > deadline) throw new Error(`${this.cli}: no model request since #${since}; screen:\n${this.s.text()}`);
      await sleep(25);
    }
  }

  /** Wait until the mock delivered a tool call since `since` and the screen shows `dialogRe`. */
  async waitDialog(since, dialogRe, timeoutMs = 20_000) {
    await this.waitTurnRequest(since, (r) => r.answer === 'tool' && r.endedAt !== null, timeoutMs);
    await this.s.waitForText(dialogRe, timeoutMs);
    await this.s.settle(400, 3000);
  }

  /**
   * Wait until the turn begun at `since` is over: a final text answer was fully sent, nothing is
   * in flight, no new request came for `quietMs`, and the screen has been quiet as long.
   */
  async waitTurnDone(since, { quietMs = 800, timeoutMs = 30_000 } = {}) {
    const deadline = Date.now() + timeoutMs;
    let stableSince = null;
    let lastCount = -1;
    for (;;) {
      const turns = this.turnsSince(since);
      const last = turns.at(-1);
      const done = last && last.answer === 'text' && last.endedAt !== null && this.server.inFlight().length === 0;
      const count = this.server.requests.length;
      if (done && count === lastCount && this.s.msSinceOutput() >= quietMs) {
        if (stableSince !== null && Date.now() - stableSince >= quietMs) break;
        stableSince ??= Date.now();
      } else stableSince = null;
      lastCount = count;
      if (Date.now() > deadline) throw new Error(`${this.cli}: turn since #${since} did not finish; screen:\n${this.s.text()}`);
      await sleep(50);
    }
    await this.s.flush();
  }

  /** Wait for quiet: nothing in flight, no output for `quietMs`. */
  async waitIdle(quietMs = 800, timeoutMs = 15_000) {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (this.server.inFlight().length === 0 && this.s.msSinceOutput() >= quietMs) break;
      await sleep(50);
    }
    await this.s.flush();
  }

  /** Wait until the mock has started streaming text deltas for the in-flight turn (after any [[wait:]]). */
  async waitStreaming(startedAfterMs, timeoutMs = 20_000) {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const r = this.server.inFlight().find(isTurn);
      if (r && Date.now() - r.at >= startedAfterMs) return r;
      await sleep(25);
    }
    throw new Error(`${this.cli}: no streaming turn`);
  }
}

export { sleep };

/** The end of a recording README: screen counts, one line per run, and the table of screens. */
export function screensSection(runs, manifest) {
  const count = (status) => manifest.filter((m) => m.status === status).length;
  const cell = (text) => text.replace(/\|/g, '\\|');
  const rows = manifest.map(
    (m) => `| ${m.status} | ${m.case}${m.ansi ? ' (+ .ansi)' : ''} | ${m.cols}x${m.rows} | ${m.msSinceStart} | \`${cell(m.title.trim())}\` | ${cell(m.note)} |`,
  );
  const runLines = runs.map((r) => {
    const extra = [r.unknown.length ? `unknown paths: ${r.unknown.join(', ')}` : '', r.error ? `stopped early: ${r.error}` : ''].filter(Boolean);
    return `- ${r.cols}x${r.rows}${r.prefix ? ` (${r.prefix})` : ''}: ${r.seconds.toFixed(1)} s, ${r.requests} requests to the mock${extra.map((e) => `, ${e}`).join('')}`;
  });
  return `Screens: ${manifest.length} (starting ${count('starting')}, ready ${count('ready')}, processing ${count('processing')}, waiting ${count('waiting')}).

Runs:
${runLines.join('\n')}

| status | case | size | ms since start | terminal title (OSC 0/2) | timeline note |
| --- | --- | --- | --- | --- | --- |
${rows.join('\n')}
`;
}
