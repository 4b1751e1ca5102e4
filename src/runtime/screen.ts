import type * as Xterm from '@xterm/headless';
import { requireCjs } from '../require-cjs.js';

const { Terminal } = requireCjs('@xterm/headless') as typeof Xterm;
type HeadlessTerminal = InstanceType<typeof Terminal>;
type Buffer = HeadlessTerminal['buffer']['active'];
type Marker = NonNullable<ReturnType<HeadlessTerminal['registerMarker']>>;

/** Rows kept above the viewport unless `SYNAPSE_SCROLLBACK_LINES` says otherwise (~1.4 KiB a row in xterm's buffers). */
export const SCROLLBACK_LINES = 2000;

/**
 * The scrollback rows as text, kept: a row that has scrolled above the viewport never changes
 * again (until a resize reflows the buffer or the buffer is switched), so each is rendered once.
 * `anchor` marks the first row not yet rendered; xterm moves it up as old rows are trimmed off
 * the top (or cleared), and that tells how many rendered rows are gone.
 */
/**
 * Where `allLines()` starts: the number of lines trimmed off the top of the scrollback so far, in
 * one `epoch` (a resize or a buffer switch starts a new one, as the rows are laid out anew). Two
 * readings of the same epoch line up: line `i` of the later is line `i + (later.first -
 * earlier.first)` of the earlier, even once a full scrollback drops a line for each new one.
 */
interface LineOrigin {
  epoch: number;
  first: number;
}

/** All lines at one moment, and where they start. */
export interface LinesAt {
  lines: string[];
  origin: LineOrigin;
}

interface History {
  buffer: Buffer;
  rows: string[];
  wrapped: boolean[];
  anchor: Marker | null;
}

/**
 * The rendered screen: every byte from the PTY goes through a headless xterm, and everything
 * that reads the CLI (status rules, reply extraction) reads rendered lines from here.
 */
export class Screen {
  private readonly term: HeadlessTerminal;
  private pending = 0;
  private readonly idleWaiters: Array<() => void> = [];
  /** Incremented after every parsed write; lets readers tell "changed since" cheaply. */
  seq = 0;
  /**
   * Line feeds parsed so far. A screen full of identical exchanges scrolls back to the very same
   * view after one more of them; this tells that something was drawn even then.
   */
  lineFeeds = 0;
  private readonly listeners: Array<() => void> = [];
  private history: History | null = null;
  private epoch = 0;
  private trimmedLines = 0;

  constructor(cols: number, rows: number, scrollback = SCROLLBACK_LINES) {
    this.term = new Terminal({ cols, rows, scrollback, allowProposedApi: true });
    this.term.onLineFeed(() => this.lineFeeds++);
  }

  get cols(): number {
    return this.term.cols;
  }

  get rows(): number {
    return this.term.rows;
  }

  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  write(data: string): void {
    this.pending++;
    this.term.write(data, () => {
      this.pending--;
      this.seq++;
      for (const l of this.listeners) l();
      if (this.pending === 0) this.idleWaiters.splice(0).forEach((r) => r());
    });
  }

  /** Resolves once every write so far has been parsed into the buffer. */
  flushed(): Promise<void> {
    if (this.pending === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  resize(cols: number, rows: number): void {
    this.forgetHistory(); // the buffer reflows
    this.term.resize(cols, rows);
  }

  /** The visible rows, top to bottom, trailing whitespace trimmed per row. */
  viewport(): string[] {
    const buf = this.term.buffer.active;
    const lines: string[] = [];
    for (let y = 0; y < this.term.rows; y++) {
      lines.push(buf.getLine(buf.baseY + y)?.translateToString(true) ?? '');
    }
    return lines;
  }

  /**
   * The background of each character of visible row `row` (index-aligned with `viewport()[row]`
   * before trimming): a highlighted menu choice is often told apart by colour alone.
   */
  backgrounds(row: number): string[] {
    const buf = this.term.buffer.active;
    const line = buf.getLine(buf.baseY + row);
    if (!line) return [];
    const out: string[] = [];
    const cell = buf.getNullCell();
    for (let x = 0; x < line.length; x++) {
      line.getCell(x, cell);
      // A wide character's second cell has width 0 and no text of its own.
      const chars = cell.getChars() || (cell.getWidth() === 0 ? '' : ' ');
      const bg = `${cell.isInverse() ? 'inv:' : ''}${cell.getBgColorMode()}:${cell.getBgColor()}`;
      for (let i = 0; i < chars.length; i++) out.push(bg);
    }
    return out;
  }

  /**
   * Scrollback plus viewport, joining soft-wrapped rows into one logical line. Read on every
   * turn and while one runs: only the viewport and rows new to the scrollback are rendered (a
   * full 5,000-row scrollback took ~100 ms to render each time).
   */
  allLines(): string[] {
    const buf = this.term.buffer.active;
    const history = this.historyOf(buf);
    const lines: string[] = [];
    const add = (text: string, wrapped: boolean) => {
      if (!wrapped) lines.push(text);
      else if (lines.length > 0) lines[lines.length - 1] += text;
      // else: the rest of a line whose start was trimmed off the top; it was counted as trimmed.
    };
    for (let i = 0; i < history.rows.length; i++) add(history.rows[i]!, history.wrapped[i]!);
    for (let i = history.rows.length; i < buf.length; i++) {
      const line = buf.getLine(i);
      if (line) add(line.translateToString(true), line.isWrapped);
    }
    return lines;
  }

  /** `allLines()` and where it starts (see `LineOrigin`). */
  linesAt(): LinesAt {
    const lines = this.allLines();
    return { lines, origin: { epoch: this.epoch, first: this.trimmedLines } };
  }

  /** The last `n` lines with text on them (scrollback included), for a report of what the CLI last showed. */
  lastLines(n: number): string[] {
    const lines = this.allLines().map((l) => l.trimEnd());
    while (lines.length > 0 && lines.at(-1) === '') lines.pop();
    const tail = lines.slice(-n);
    while (tail.length > 0 && tail[0] === '') tail.shift();
    return tail;
  }

  /** The rendered scrollback of `buf`, brought up to date: trimmed rows dropped, new ones rendered. */
  private historyOf(buf: Buffer): History {
    let h = this.history;
    if (h && (h.buffer !== buf || h.anchor?.isDisposed)) h = this.forgetHistory();
    if (h?.anchor) {
      const gone = h.rows.length - h.anchor.line;
      // A line is trimmed once its first row is: what is left of it is not shown (allLines).
      for (let i = 0; i < gone; i++) if (!h.wrapped[i]) this.trimmedLines++;
      h.rows.splice(0, gone);
      h.wrapped.splice(0, gone);
    }
    h ??= this.history = { buffer: buf, rows: [], wrapped: [], anchor: null };
    // Rows above the viewport are final; the viewport's are rendered fresh on every call.
    if (h.rows.length < buf.baseY) {
      for (let i = h.rows.length; i < buf.baseY; i++) {
        const line = buf.getLine(i);
        h.rows.push(line?.translateToString(true) ?? '');
        h.wrapped.push(line?.isWrapped ?? false);
      }
      h.anchor?.dispose();
      // A marker is placed relative to the cursor row: this is the first row of the viewport.
      h.anchor = this.term.registerMarker(h.rows.length - (buf.baseY + buf.cursorY)) ?? null;
      if (!h.anchor) return this.forgetHistory() ?? { buffer: buf, rows: [], wrapped: [], anchor: null };
    }
    return h;
  }

  private forgetHistory(): null {
    if (this.history) this.epoch++;
    this.history?.anchor?.dispose();
    this.history = null;
    return null;
  }

  dispose(): void {
    this.forgetHistory();
    this.term.dispose();
  }
}
