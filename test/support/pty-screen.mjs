// Run a program under node-pty and render its output in an @xterm/headless terminal, so tests
// and the screen recorder read the screen as a person sees it.
//
//   const s = spawnScreen({ file, args, cwd, env, cols: 120, rows: 40 });
//   await s.waitForText(/Type your message/, 20_000);
//   await s.paste('hello'); await s.submit();
//   s.viewport()  -> string[]  (visible rows, right-trimmed, trailing blank rows dropped)
//   await s.kill()            (SIGTERM then SIGKILL to the whole process group)

import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const pty = require('node-pty');
const { Terminal } = require('@xterm/headless');

export const PASTE_START = '\x1b[200~';
export const PASTE_END = '\x1b[201~';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export function spawnScreen({ file, args = [], cwd, env, cols = 120, rows = 40, scrollback = 5000 }) {
  const term = new Terminal({ cols, rows, scrollback, allowProposedApi: true });
  const proc = pty.spawn(file, args, { name: env?.TERM ?? 'xterm-256color', cols, rows, cwd, env });
  const startedAt = Date.now();
  /** Raw output chunks with their arrival time (ms since start), for .ansi files and timing notes. */
  const raw = [];
  let lastOutputAt = startedAt;
  let exit = null;
  const exited = new Promise((resolve) => {
    proc.onExit((e) => {
      exit = e;
      resolve(e);
    });
  });
  proc.onData((data) => {
    lastOutputAt = Date.now();
    raw.push({ t: lastOutputAt - startedAt, data });
    term.write(data);
  });
  /** Terminal titles the program set (OSC 0/2), newest last. */
  const titles = [];
  term.onTitleChange((t) => titles.push({ t: Date.now() - startedAt, title: t }));
  // Answer the terminal's replies (cursor position reports, device attributes) like a real terminal.
  term.onData((data) => {
    if (exit === null) proc.write(data);
  });

  /** Resolves once everything received so far has been parsed by the emulator. */
  const flush = () => new Promise((resolve) => term.write('', resolve));

  function lines(from, to) {
    const buf = term.buffer.active;
    const out = [];
    for (let y = from; y < to; y++) out.push(buf.getLine(y)?.translateToString(true) ?? '');
    return out;
  }
  function trimEnd(rowsOut) {
    let n = rowsOut.length;
    while (n > 0 && rowsOut[n - 1].trim() === '') n--;
    return rowsOut.slice(0, n);
  }

  const self = {
    term,
    proc,
    pid: proc.pid,
    raw,
    titles,
    startedAt,
    exited,
    get exit() {
      return exit;
    },
    get cols() {
      return term.cols;
    },
    get rows() {
      return term.rows;
    },
    /** Visible rows, each right-trimmed, trailing blank rows removed. */
    viewport() {
      const buf = term.buffer.active;
      return trimEnd(lines(buf.baseY, buf.baseY + term.rows));
    },
    text() {
      return self.viewport().join('\n');
    },
    /** Scrollback plus viewport. */
    allLines() {
      const buf = term.buffer.active;
      return trimEnd(lines(0, buf.length));
    },
    /** The window title the program set last (OSC 0/2), or ''. */
    title() {
      return titles.at(-1)?.title ?? '';
    },
    isAltScreen() {
      return term.buffer.active.type === 'alternate';
    },
    cursor() {
      const buf = term.buffer.active;
      return { x: buf.cursorX, y: buf.cursorY };
    },
    rawText() {
      return raw.map((c) => c.data).join('');
    },
    msSinceOutput() {
      return Date.now() - lastOutputAt;
    },
    flush,
    write(data) {
      if (exit === null) proc.write(data);
    },
    async paste(text) {
      self.write(`${PASTE_START}${text}${PASTE_END}`);
      await flush();
    },
    /** Type text one character at a time. */
    async type(text, perCharMs = 15) {
      for (const ch of text) {
        self.write(ch);
        await sleep(perCharMs);
      }
    },
    /** Send the submit key (CR) as its own write, after `gapMs`. */
    async submit(gapMs = 100) {
      await sleep(gapMs);
      self.write('\r');
    },
    resize(c, r) {
      term.resize(c, r);
      if (exit === null) proc.resize(c, r);
    },
    /** Wait until `pred(viewportText, self)` is truthy; rejects with the screen at the deadline. */
    async waitFor(pred, timeoutMs = 15_000, pollMs = 50) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        await flush();
        const text = self.text();
        const v = pred(text, self);
        if (v) return v;
        if (Date.now() > deadline) {
          const err = new Error(`screen condition not met within ${timeoutMs} ms; screen:\n${text}`);
          err.screen = text;
          throw err;
        }
        if (exit !== null) throw new Error(`process exited (${JSON.stringify(exit)}) while waiting; screen:\n${text}`);
        await sleep(pollMs);
      }
    },
    waitForText(re, timeoutMs) {
      const rx = typeof re === 'string' ? new RegExp(re.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) : re;
      return self.waitFor((t) => rx.test(t), timeoutMs);
    },
    /** Wait until no output arrived for `quietMs` (screen settled), at most `timeoutMs`. */
    async settle(quietMs = 400, timeoutMs = 5_000) {
      const deadline = Date.now() + timeoutMs;
      while (self.msSinceOutput() < quietMs && Date.now() < deadline) await sleep(Math.min(50, quietMs));
      await flush();
    },
    /** SIGTERM the process group, then SIGKILL if it is still there after `graceMs`. */
    async kill(graceMs = 1500) {
      const pgid = proc.pid;
      const signalGroup = (sig) => {
        try {
          process.kill(-pgid, sig);
        } catch {
          try {
            process.kill(pgid, sig);
          } catch {
            // already gone
          }
        }
      };
      if (exit === null) {
        signalGroup('SIGTERM');
        await Promise.race([exited, sleep(graceMs)]);
      }
      // Children may outlive the leader; the group id stays valid while any member lives.
      signalGroup('SIGKILL');
      await Promise.race([exited, sleep(500)]);
      term.dispose();
    },
  };
  return self;
}
