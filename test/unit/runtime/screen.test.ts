import { describe, expect, it } from 'vitest';
import { Screen } from '../../../src/runtime/screen.js';

/** What allLines() must equal: every row of the active buffer rendered now, soft-wrapped rows joined. */
function rendered(screen: Screen): string[] {
  const buf = (screen as unknown as { term: { buffer: { active: any } } }).term.buffer.active;
  const lines: string[] = [];
  for (let i = 0; i < buf.length; i++) {
    const line = buf.getLine(i);
    const text = line.translateToString(true);
    if (line.isWrapped && lines.length > 0) lines[lines.length - 1] += text;
    else lines.push(text);
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
