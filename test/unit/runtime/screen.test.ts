import { describe, expect, it } from 'vitest';
import { linesSince } from '../../../src/profiles/text.js';
import { Screen } from '../../../src/runtime/screen.js';

/**
 * What allLines() must equal: every row of the active buffer rendered now, soft-wrapped rows
 * joined; the rest of a line whose first row was trimmed off the top is not a line.
 */
function rendered(screen: Screen): string[] {
  const buf = (screen as unknown as { term: { buffer: { active: any } } }).term.buffer.active;
  const lines: string[] = [];
  for (let i = 0; i < buf.length; i++) {
    const line = buf.getLine(i);
    const text = line.translateToString(true);
    if (!line.isWrapped) lines.push(text);
    else if (lines.length > 0) lines[lines.length - 1] += text;
  }
  return lines;
}

async function write(screen: Screen, data: string): Promise<void> {
  screen.write(data);
  await screen.flushed();
}

describe('Screen.allLines keeps the scrollback it has rendered', () => {
  it('equals a full render while rows scroll off, are trimmed at the scrollback limit, wrap, and are redrawn in the viewport', async () => {
    const screen = new Screen(20, 5, 50);
    for (let i = 0; i < 200; i++) {
      await write(screen, `row ${i}\r\n`);
      if (i % 7 === 0) await write(screen, `a long row ${i} that wraps over the edge of twenty columns\r\n`);
      if (i % 11 === 0) await write(screen, '\x1b[2;1H\x1b[2Kredrawn in the viewport\x1b[5;1H');
      if (i % 5 === 0) expect(screen.allLines()).toEqual(rendered(screen));
    }
    expect(screen.allLines()).toEqual(rendered(screen));
    expect(screen.allLines().length).toBeLessThanOrEqual(55);
  });

  it('equals a full render after the scrollback is cleared, after a resize, and across the alternate screen', async () => {
    const screen = new Screen(20, 5, 50);
    for (let i = 0; i < 30; i++) await write(screen, `before ${i}\r\n`);
    expect(screen.allLines()).toEqual(rendered(screen));
    await write(screen, '\x1b[3J'); // clear the scrollback
    expect(screen.allLines()).toEqual(rendered(screen));
    for (let i = 0; i < 10; i++) await write(screen, `after ${i}\r\n`);
    expect(screen.allLines()).toEqual(rendered(screen));
    screen.resize(12, 5);
    expect(screen.allLines()).toEqual(rendered(screen));
    for (let i = 0; i < 10; i++) await write(screen, `narrow ${i} wraps here\r\n`);
    expect(screen.allLines()).toEqual(rendered(screen));
    await write(screen, '\x1b[?1049h\x1b[Hon the alternate screen');
    expect(screen.allLines()).toEqual(rendered(screen));
    await write(screen, '\x1b[?1049l');
    for (let i = 0; i < 10; i++) await write(screen, `back ${i}\r\n`);
    expect(screen.allLines()).toEqual(rendered(screen));
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
    const screen = new Screen(40, 5, 20);
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
    const screen = new Screen(20, 5, 20);
    for (let i = 0; i < 40; i++) await write(screen, i % 3 === 0 ? `long ${i} that wraps over the edge of twenty columns\r\n` : `row ${i}\r\n`);
    const before = screen.linesAt();
    await write(screen, 'reply one\r\nreply two\r\n');
    expect(since(screen, before).filter((l) => l !== '')).toEqual(['reply one', 'reply two']);
    expect(screen.allLines()).toEqual(rendered(screen));
    expect(screen.allLines()[0]).not.toMatch(/^ the edge|^columns|^ver the/);
  });

  it('start a new epoch when the rows are laid out anew (resize), so nothing is lined up across it', async () => {
    const screen = new Screen(40, 5, 20);
    for (let i = 0; i < 30; i++) await write(screen, `old ${i}\r\n`);
    const before = screen.linesAt();
    screen.resize(30, 5);
    expect(screen.linesAt().origin.epoch).not.toBe(before.origin.epoch);
  });
});
