import { describe, expect, it } from 'vitest';
import { completeShellLine, parseShellLine } from '../../../src/cli/commands/shell-line.js';

describe('synapse shell: the line grammar', () => {
  it("@name, @a,b and @all address agents; the original's --wait is dropped", () => {
    expect(parseShellLine('@codex review this')).toEqual({ kind: 'send', targets: ['codex'], text: 'review this' });
    expect(parseShellLine('  @codex,gemini,codex  compare\nthese ')).toEqual({ kind: 'send', targets: ['codex', 'gemini'], text: 'compare\nthese' });
    expect(parseShellLine('@synapse-claude-8100 hi')).toEqual({ kind: 'send', targets: ['synapse-claude-8100'], text: 'hi' });
    expect(parseShellLine('@ALL stand-up')).toEqual({ kind: 'send', targets: 'all', text: 'stand-up' });
    expect(parseShellLine('@codex --wait look')).toEqual({ kind: 'send', targets: ['codex'], text: 'look' });
  });

  it('refuses what cannot be sent, with a reason', () => {
    expect(parseShellLine('@codex')).toMatchObject({ kind: 'bad', reason: expect.stringContaining('nothing to send') });
    expect(parseShellLine('@ hi')).toMatchObject({ kind: 'bad' });
    expect(parseShellLine('@all,codex hi')).toMatchObject({ kind: 'bad', reason: expect.stringContaining('@all') });
    expect(parseShellLine('@co$dex hi')).toMatchObject({ kind: 'bad', reason: expect.stringContaining('not an agent name') });
    expect(parseShellLine('@\u001b[2Jcodex hi')).toMatchObject({ kind: 'bad' });
  });

  it('commands, plain text and empty lines', () => {
    expect(parseShellLine('')).toEqual({ kind: 'empty' });
    expect(parseShellLine('exit')).toEqual({ kind: 'command', name: 'exit', arg: null });
    expect(parseShellLine('/quit')).toEqual({ kind: 'command', name: 'exit', arg: null });
    expect(parseShellLine('/to reviewer')).toEqual({ kind: 'command', name: 'to', arg: 'reviewer' });
    expect(parseShellLine('/to')).toEqual({ kind: 'command', name: 'to', arg: null });
    expect(parseShellLine('/frob x')).toEqual({ kind: 'unknown-command', name: 'frob' });
    expect(parseShellLine('fix the flaky test')).toEqual({ kind: 'plain', text: 'fix the flaky test' });
  });

  it('completes the @name being typed, the last of a comma list, and commands', () => {
    const names = ['synapse-codex-8120', 'codex', 'claude', 'carl'];
    expect(completeShellLine('@c', names)).toEqual([['carl', 'claude', 'codex'], 'c']);
    expect(completeShellLine('@codex,cl', names)).toEqual([['claude'], 'cl']);
    expect(completeShellLine('@a', names)).toEqual([['all'], 'a']);
    expect(completeShellLine('@codex hello c', names)).toEqual([[], '@codex hello c']);
    expect(completeShellLine('/t', names)).toEqual([['/to'], '/t']);
  });
});
