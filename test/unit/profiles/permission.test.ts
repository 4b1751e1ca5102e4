import { describe, expect, it } from 'vitest';
import { menuKeys, parseNumberedDialog, pickChoice } from '../../../src/profiles/permission.js';

describe('parseNumberedDialog', () => {
  it('reads the question and numbered choices, stripping markers, borders and wraps', () => {
    const screen = [
      '  Would you like to run the following command?',
      '',
      '  $ touch a',
      '› 1. Yes, proceed (y)',
      "  2. Yes, and don't ask again for commands that start with `touch`",
      '     (p)',
      '  3. No, and tell Codex what to do differently (esc)',
      '',
      '  Press enter to confirm or esc to cancel',
    ];
    const p = parseNumberedDialog(screen, /Would you like to run the following command\?/);
    expect(p).toEqual({
      prompt: 'Would you like to run the following command?',
      choices: [
        { key: '1', label: 'Yes, proceed (y)' },
        { key: '2', label: "Yes, and don't ask again for commands that start with `touch` (p)" },
        { key: '3', label: 'No, and tell Codex what to do differently (esc)' },
      ],
      selected: '1',
    });
  });

  it('reads a dialog drawn in a box', () => {
    const screen = ['│ Allow execution of [Shell]?            │', '│                                        │', '│ ● 1. Allow once                        │', '│   2. Allow for this session            │', '│   3. No, suggest changes (esc)         │', '╰────────────────────────────────────────╯'];
    const p = parseNumberedDialog(screen, /Allow execution of/);
    expect(p?.choices.map((c) => c.key)).toEqual(['1', '2', '3']);
    expect(p?.choices[2]?.label).toBe('No, suggest changes (esc)');
  });

  it('returns null without the question', () => {
    expect(parseNumberedDialog(['❯ 1. Yes'], /Do you want to proceed/)).toBeNull();
  });
});

describe('pickChoice', () => {
  const choices = [
    { key: '1', label: 'Yes' },
    { key: '2', label: 'Yes, and always allow' },
    { key: '3', label: 'No' },
  ];
  it('takes a key, or a word for approve and deny', () => {
    expect(pickChoice(choices, '2')?.key).toBe('2');
    expect(pickChoice(choices, 'approve')?.key).toBe('1');
    expect(pickChoice(choices, 'deny')?.key).toBe('3');
    expect(pickChoice(choices, 'no')?.key).toBe('3');
    expect(pickChoice(choices, 'maybe')).toBeNull();
  });
});

describe('menuKeys', () => {
  const prompt = { prompt: 'q', selected: '1', choices: [{ key: '1', label: 'Yes' }, { key: '2', label: 'Always' }, { key: '3', label: 'No' }] };
  it('moves from the highlighted row to the choice, then presses Enter', () => {
    expect(menuKeys(prompt, prompt.choices[2]!)).toEqual(['\x1b[B', '\x1b[B', '\r']);
    expect(menuKeys({ ...prompt, selected: '3' }, prompt.choices[0]!)).toEqual(['\x1b[A', '\x1b[A', '\r']);
    expect(menuKeys(prompt, prompt.choices[0]!)).toEqual(['\r']);
  });
});
