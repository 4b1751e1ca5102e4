import xtermHeadless from '@xterm/headless';

const { Terminal } = xtermHeadless;
type HeadlessTerminal = InstanceType<typeof Terminal>;

const SCROLLBACK_LINES = 5000;

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

  constructor(cols: number, rows: number) {
    this.term = new Terminal({ cols, rows, scrollback: SCROLLBACK_LINES, allowProposedApi: true });
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

  /** Scrollback plus viewport, joining soft-wrapped rows into one logical line. */
  allLines(): string[] {
    const buf = this.term.buffer.active;
    const lines: string[] = [];
    for (let i = 0; i < buf.length; i++) {
      const line = buf.getLine(i);
      if (!line) continue;
      const text = line.translateToString(true);
      if (line.isWrapped && lines.length > 0) lines[lines.length - 1] += text;
      else lines.push(text);
    }
    return lines;
  }

  /** The last `n` lines with text on them (scrollback included), for a report of what the CLI last showed. */
  lastLines(n: number): string[] {
    const lines = this.allLines().map((l) => l.trimEnd());
    while (lines.length > 0 && lines.at(-1) === '') lines.pop();
    const tail = lines.slice(-n);
    while (tail.length > 0 && tail[0] === '') tail.shift();
    return tail;
  }

  dispose(): void {
    this.term.dispose();
  }
}
