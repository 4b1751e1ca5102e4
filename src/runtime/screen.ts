import type * as Xterm from '@xterm/headless';
import { requireCjs } from '../require-cjs.js';

const { Terminal } = requireCjs('@xterm/headless') as typeof Xterm;
type HeadlessTerminal = InstanceType<typeof Terminal>;
type Marker = NonNullable<ReturnType<HeadlessTerminal['registerMarker']>>;

/** Rows kept above the viewport unless `SYNAPSE_SCROLLBACK_LINES` says otherwise (as text: ~0.1 KiB a row). */
export const SCROLLBACK_LINES = 2000;

/**
 * Rows xterm itself keeps above the viewport, at most. A row that has scrolled above the viewport
 * never changes again, so it is rendered to text once and the text is the scrollback readers see;
 * xterm's cells for it (~1.4 KiB a row at 120 columns, 2.8 MiB for 2,000 rows) are not needed for
 * long. Rows are rendered before xterm would trim them (`renderAhead` scrolls at most).
 */
const TERMINAL_SCROLLBACK = 200;

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

/**
 * The normal buffer's rows above the viewport, rendered as text, oldest first. `anchor` marks
 * xterm's first row not yet rendered (xterm moves it up as it trims rows off the top); with no
 * anchor, nothing has been rendered from the rows xterm holds now. The alternate buffer has no
 * scrollback.
 */
interface History {
  rows: string[];
  wrapped: boolean[];
  anchor: Marker | null;
}

export interface ScreenOptions {
  /** Rows above the viewport readers see (`SYNAPSE_SCROLLBACK_LINES`). */
  scrollback?: number;
  /** Rows above the viewport xterm holds as cells (tests make it small). */
  terminalScrollback?: number;
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
  private readonly history: History = { rows: [], wrapped: [], anchor: null };
  private readonly scrollback: number;
  /** Rows not yet rendered at which they are rendered, well before xterm would trim them. */
  private readonly renderAhead: number;
  /** Scrolls since the rows above the viewport were last rendered. */
  private scrolled = 0;
  private activeType: 'normal' | 'alternate' = 'normal';
  private epoch = 0;
  private trimmedLines = 0;

  constructor(cols: number, rows: number, options: ScreenOptions = {}) {
    this.scrollback = options.scrollback ?? SCROLLBACK_LINES;
    const terminalScrollback = Math.min(this.scrollback, options.terminalScrollback ?? TERMINAL_SCROLLBACK);
    this.renderAhead = Math.max(1, Math.floor(terminalScrollback / 2));
    this.term = new Terminal({ cols, rows, scrollback: terminalScrollback, allowProposedApi: true });
    this.term.onLineFeed(() => this.lineFeeds++);
    // Every row pushed above the viewport (a line feed, a wrap, an index) scrolls once: after
    // `renderAhead` scrolls the rows are rendered, so none is trimmed unrendered.
    this.term.onScroll(() => {
      if (++this.scrolled >= this.renderAhead && this.term.buffer.active.type === 'normal') this.renderHistory();
    });
    // ED3 clears xterm's scrollback; the rows rendered from it go too, counted as trimmed.
    this.term.parser.registerCsiHandler({ final: 'J' }, (params) => {
      if (params[0] === 3 && this.term.buffer.active.type === 'normal') this.clearHistory();
      return false;
    });
    // A full reset (RIS) starts the buffers anew.
    this.term.parser.registerEscHandler({ final: 'c' }, () => {
      this.forgetHistory();
      return false;
    });
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
    // xterm reflows the rows it holds: their text is dropped and rendered again from the new
    // layout. Rows kept only as text stay; joined into logical lines they read the same.
    const h = this.history;
    const inTerminal = h.anchor && !h.anchor.isDisposed ? h.anchor.line : 0;
    h.rows.splice(h.rows.length - inTerminal);
    h.wrapped.splice(h.wrapped.length - inTerminal);
    h.anchor?.dispose();
    h.anchor = null;
    this.epoch++;
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
    const history = this.currentHistory();
    const lines: string[] = [];
    const add = (text: string, wrapped: boolean) => {
      if (!wrapped) lines.push(text);
      else if (lines.length > 0) lines[lines.length - 1] += text;
      // else: the rest of a line whose start was trimmed off the top; it was counted as trimmed.
    };
    for (let i = 0; i < history.rows.length; i++) add(history.rows[i]!, history.wrapped[i]!);
    for (let i = buf.baseY; i < buf.length; i++) {
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

  /** The active buffer's rows above the viewport as text, brought up to date (none on the alternate screen). */
  private currentHistory(): Pick<History, 'rows' | 'wrapped'> {
    const type = this.term.buffer.active.type;
    if (type !== this.activeType) {
      this.activeType = type;
      this.epoch++; // the other buffer's rows are laid out differently
    }
    if (type !== 'normal') return { rows: [], wrapped: [] };
    this.renderHistory();
    return this.history;
  }

  /** Renders the normal buffer's rows that scrolled above the viewport since the last time. */
  private renderHistory(): void {
    const buf = this.term.buffer.normal;
    const h = this.history;
    this.scrolled = 0;
    if (h.anchor?.isDisposed) {
      // xterm dropped rows before they were rendered: what follows does not continue the text.
      h.anchor = null;
      this.epoch++;
    }
    const from = h.anchor ? h.anchor.line : 0;
    if (from >= buf.baseY) return;
    for (let i = from; i < buf.baseY; i++) {
      const line = buf.getLine(i);
      h.rows.push(line?.translateToString(true) ?? '');
      h.wrapped.push(line?.isWrapped ?? false);
    }
    h.anchor?.dispose();
    // A marker is placed relative to the cursor row: this is the first row of the viewport.
    h.anchor = this.term.registerMarker(-buf.cursorY) ?? null;
    this.trimHistory(h.rows.length - this.scrollback);
    // Without a marker the next render could not tell where this one ended: start anew.
    if (!h.anchor) this.forgetHistory();
  }

  /** Drops the `count` oldest rows; a line is trimmed once its first row is (allLines). */
  private trimHistory(count: number): void {
    if (count <= 0) return;
    const h = this.history;
    for (let i = 0; i < count; i++) if (!h.wrapped[i]) this.trimmedLines++;
    h.rows.splice(0, count);
    h.wrapped.splice(0, count);
  }

  /** The scrollback is cleared (ED3): every row above the viewport is trimmed. */
  private clearHistory(): void {
    this.renderHistory();
    this.trimHistory(this.history.rows.length);
  }

  private forgetHistory(): void {
    const h = this.history;
    h.anchor?.dispose();
    h.anchor = null;
    h.rows = [];
    h.wrapped = [];
    this.epoch++;
  }

  dispose(): void {
    this.forgetHistory();
    this.term.dispose();
  }
}
