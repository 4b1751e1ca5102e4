import type { AgentTerminal } from './terminal.js';

// Modes a TUI may have switched on in the user's terminal; all are turned off on the way out.
const RESTORE = '\x1b[?2004l\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?1004l\x1b[?1049l\x1b[?25h';

/**
 * Attaches the user's terminal: raw stdin to the PTY, PTY output to stdout, resizes forwarded.
 * Returns a restore function that is safe to call more than once and on every exit path.
 */
export function attachUserTerminal(terminal: AgentTerminal, onResize: (cols: number, rows: number) => void, onUserInput: () => void): () => void {
  const stdin = process.stdin;
  const stdout = process.stdout;
  const wasRaw = stdin.isTTY ? stdin.isRaw : false;
  if (stdin.isTTY) stdin.setRawMode(true);
  stdin.resume();
  const onData = (data: Buffer) => {
    onUserInput();
    terminal.write(data.toString('utf8'));
  };
  stdin.on('data', onData);
  terminal.onData((data) => stdout.write(data));
  const resize = () => {
    if (stdout.columns && stdout.rows) onResize(stdout.columns, stdout.rows);
  };
  stdout.on('resize', resize);
  let restored = false;
  const restore = () => {
    if (restored) return;
    restored = true;
    stdin.off('data', onData);
    stdout.off('resize', resize);
    if (stdin.isTTY) stdin.setRawMode(wasRaw);
    stdin.pause();
    if (stdout.isTTY) stdout.write(RESTORE);
  };
  process.once('exit', restore);
  return restore;
}
