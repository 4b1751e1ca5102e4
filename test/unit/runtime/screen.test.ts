import { describe, expect, it } from 'vitest';
import { linesSince } from '../../../src/profiles/text.js';
import { Terminal } from '@xterm/headless';
import { Screen } from '../../../src/runtime/screen.js';

type Xterm = InstanceType<typeof Terminal>;

/**
 * What allLines() must equal: every row of a plain xterm with the whole scrollback as cells (what
 * the screen was before it kept old rows as text), soft-wrapped rows joined; the rest of a line
 * whose first row was trimmed off the top is not a line.
 */
function rendered(term: Xterm): string[] {
  const buf = term.buffer.active;
  const lines: string[] = [];
  for (let i = 0; i < buf.length; i++) {
    const line = buf.getLine(i)!;
    const text = line.translateToString(true);
    if (!line.isWrapped) lines.push(text);
    else if (lines.length > 0) lines[lines.length - 1] += text;
  }
  return lines;
}

/** A screen whose xterm holds only a few rows above the viewport, and a plain xterm holding them all, fed alike. */
function pair(cols: number, rows: number, scrollback = 50, terminalScrollback = 8) {
  const screen = new Screen(cols, rows, { scrollback, terminalScrollback });
  const reference = new Terminal({ cols, rows, scrollback, allowProposedApi: true });
  return {
    screen,
    reference,
    async write(data: string): Promise<void> {
      screen.write(data);
      await Promise.all([screen.flushed(), new Promise<void>((resolve) => reference.write(data, resolve))]);
    },
    resize(c: number, r: number): void {
      screen.resize(c, r);
      reference.resize(c, r);
    },
    /** Rows xterm holds as cells in the screen. */
    cellRows: () => (screen as unknown as { term: Xterm }).term.buffer.normal.length,
  };
}

async function write(screen: Screen, data: string): Promise<void> {
  screen.write(data);
  await screen.flushed();
}

describe('Screen.allLines keeps the scrollback as text, xterm only the last rows as cells', () => {
  it('equals a full render while rows scroll off, are trimmed at the scrollback limit, wrap, and are redrawn in the viewport', async () => {
    const p = pair(20, 5);
    for (let i = 0; i < 200; i++) {
      await p.write(`row ${i}\r\n`);
      if (i % 7 === 0) await p.write(`a long row ${i} that wraps over the edge of twenty columns\r\n`);
      if (i % 11 === 0) await p.write('\x1b[2;1H\x1b[2Kredrawn in the viewport\x1b[5;1H');
      if (i % 5 === 0) expect(p.screen.allLines()).toEqual(rendered(p.reference));
    }
    expect(p.screen.allLines()).toEqual(rendered(p.reference));
    expect(p.screen.allLines().length).toBeGreaterThanOrEqual(40);
    expect(p.screen.allLines().length).toBeLessThanOrEqual(55);
    expect(p.cellRows()).toBeLessThanOrEqual(5 + 8);
  });

  it('loses no row when many more rows than xterm holds arrive in one write, or in one line that wraps over them', async () => {
    const p = pair(20, 5);
    await p.write(Array.from({ length: 120 }, (_, i) => `burst ${i}`).join('\r\n') + '\r\n');
    expect(p.screen.allLines()).toEqual(rendered(p.reference));
    expect(p.screen.allLines()).toContain('burst 70');
    // 40 rows of one line, scrolled by wrapping alone (no line feed), then a short one.
    await p.write(`${'0123456789'.repeat(80)}\r\nafter the long line\r\n`);
    expect(p.screen.allLines()).toEqual(rendered(p.reference));
    expect(p.screen.allLines().some((l) => l.length === 800)).toBe(true);
    expect(p.cellRows()).toBeLessThanOrEqual(5 + 8);
  });

  it('equals a full render after the scrollback is cleared, after a resize, across the alternate screen and after a reset', async () => {
    const p = pair(20, 5);
    for (let i = 0; i < 30; i++) await p.write(`before ${i}\r\n`);
    expect(p.screen.allLines()).toEqual(rendered(p.reference));
    await p.write('\x1b[3J'); // clear the scrollback
    expect(p.screen.allLines()).toEqual(rendered(p.reference));
    for (let i = 0; i < 25; i++) await p.write(`after ${i}\r\n`);
    expect(p.screen.allLines()).toEqual(rendered(p.reference));
    // Rows kept only as text are not reflowed, but joined into logical lines they read the same.
    p.resize(12, 5);
    expect(p.screen.allLines()).toEqual(rendered(p.reference));
    for (let i = 0; i < 10; i++) await p.write(`narrow ${i} wraps here\r\n`);
    expect(p.screen.allLines()).toEqual(rendered(p.reference));
    await p.write('\x1b[?1049h\x1b[Hon the alternate screen');
    expect(p.screen.allLines()).toEqual(rendered(p.reference));
    await p.write('\x1b[?1049l');
    for (let i = 0; i < 10; i++) await p.write(`back ${i}\r\n`);
    expect(p.screen.allLines()).toEqual(rendered(p.reference));
    expect(p.screen.allLines()).toContain('after 3'); // kept as text through the alternate screen
    await p.write('\x1bcreset\r\n');
    expect(p.screen.allLines()).toEqual(rendered(p.reference));
  });
  it('never holds a row twice when xterm gives it no marker to tell where rendering stopped', async () => {
    const p = pair(20, 5);
    (p.screen as unknown as { term: { registerMarker: () => undefined } }).term.registerMarker = () => undefined;
    for (let i = 0; i < 30; i++) await p.write(`row ${i}\r\n`);
    const rows = p.screen.allLines().filter((l) => l !== '');
    expect(rows).toContain('row 29');
    expect(new Set(rows).size).toBe(rows.length);
  });
});

describe('lines since a moment, once the scrollback is full', () => {
  /** The lines drawn since `before`, as a turn reads its reply. */
  function since(screen: Screen, before: ReturnType<Screen['linesAt']>): string[] {
    const now = screen.linesAt();
    const trimmed = now.origin.epoch === before.origin.epoch ? now.origin.first - before.origin.first : 0;
    return linesSince(before.lines, now.lines, trimmed);
  }

  it('are only the new lines, while every new line pushes an old one off the top', async () => {
    const screen = new Screen(40, 5, { scrollback: 20, terminalScrollback: 6 });
    for (let i = 0; i < 100; i++) await write(screen, `old ${i}\r\n`);
    const before = screen.linesAt();
    await write(screen, 'new A\r\nnew B\r\nnew C\r\n');
    const now = screen.linesAt();
    expect(now.lines.length).toBe(before.lines.length); // the scrollback is full: as many lines as before
    expect(now.origin.first - before.origin.first).toBe(3);
    expect(since(screen, before).filter((l) => l !== '')).toEqual(['new A', 'new B', 'new C']);
    // Lined up by position alone, every line would look new (what the turn read before the fix).
    expect(linesSince(before.lines, now.lines).length).toBe(now.lines.length);
  });

  it('count a long line trimmed part way as gone, and never show what is left of it as a line', async () => {
    const p = pair(20, 5, 20, 6);
    for (let i = 0; i < 40; i++) await p.write(i % 3 === 0 ? `long ${i} that wraps over the edge of twenty columns\r\n` : `row ${i}\r\n`);
    const before = p.screen.linesAt();
    await p.write('reply one\r\nreply two\r\n');
    expect(since(p.screen, before).filter((l) => l !== '')).toEqual(['reply one', 'reply two']);
    expect(p.screen.allLines()).toEqual(rendered(p.reference));
    expect(p.screen.allLines()[0]).not.toMatch(/^ the edge|^columns|^ver the/);
  });

  it('start a new epoch when the rows are laid out anew (resize), so nothing is lined up across it', async () => {
    const screen = new Screen(40, 5, { scrollback: 20, terminalScrollback: 6 });
    for (let i = 0; i < 30; i++) await write(screen, `old ${i}\r\n`);
    const before = screen.linesAt();
    screen.resize(30, 5);
    expect(screen.linesAt().origin.epoch).not.toBe(before.origin.epoch);
  });
});
