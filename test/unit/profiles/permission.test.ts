import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { findProfile } from '../../../src/profiles/index.js';
import { answerKeys, menuKeys, parseNumberedDialog, parseRowDialog, pickChoice } from '../../../src/profiles/permission.js';
import { Screen } from '../../../src/runtime/screen.js';

const OPENCODE = new URL('../../fixtures/screens/opencode/1.18.33/waiting/', import.meta.url);
const RIGHT = '\x1b[C';
const LEFT = '\x1b[D';

/** A recorded OpenCode dialog replayed into the runtime's own Screen, as the agent reads it. */
async function replay(name: string): Promise<Screen> {
  const screen = new Screen(120, 40);
  screen.write(fs.readFileSync(new URL(`${name}.ansi`, OPENCODE), 'utf8'));
  await screen.flushed();
  return screen;
}

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
    const screen = [
      '│ Allow execution of [Shell]?            │',
      '│                                        │',
      '│ ● 1. Allow once                        │',
      '│   2. Allow for this session            │',
      '│   3. No, suggest changes (esc)         │',
      '╰────────────────────────────────────────╯',
    ];
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
  it('maps deny to a Reject choice (OpenCode) as well as to No', () => {
    const row = [
      { key: '1', label: 'Allow once' },
      { key: '2', label: 'Allow always' },
      { key: '3', label: 'Reject' },
    ];
    expect(pickChoice(row, 'deny')?.key).toBe('3');
    expect(pickChoice(row, 'approve')?.key).toBe('1');
  });

  it('takes a key, or a word for approve and deny', () => {
    expect(pickChoice(choices, '2')?.key).toBe('2');
    expect(pickChoice(choices, 'approve')?.key).toBe('1');
    expect(pickChoice(choices, 'deny')?.key).toBe('3');
    expect(pickChoice(choices, 'no')?.key).toBe('3');
    expect(pickChoice(choices, 'maybe')).toBeNull();
  });
});

describe('menuKeys', () => {
  const prompt = {
    prompt: 'q',
    selected: '1',
    choices: [
      { key: '1', label: 'Yes' },
      { key: '2', label: 'Always' },
      { key: '3', label: 'No' },
    ],
  };
  it('moves from the highlighted row to the choice, then presses Enter', () => {
    expect(menuKeys(prompt, prompt.choices[2]!)).toEqual(['\x1b[B', '\x1b[B', '\r']);
    expect(menuKeys({ ...prompt, selected: '3' }, prompt.choices[0]!)).toEqual(['\x1b[A', '\x1b[A', '\r']);
    expect(menuKeys(prompt, prompt.choices[0]!)).toEqual(['\r']);
  });
});

describe('parseRowDialog (OpenCode, recorded screens)', () => {
  const question = findProfile('opencode')!.permission!.question;
  const choices = [
    { key: '1', label: 'Allow once' },
    { key: '2', label: 'Allow always' },
    { key: '3', label: 'Reject' },
  ];

  it('reads the one-row choices and, from the background colour, the highlighted one', async () => {
    const screen = await replay('permission-dialog');
    const p = parseRowDialog(screen.viewport(), question, (row) => screen.backgrounds(row));
    expect(p).toEqual({ prompt: '△ Permission required', choices, selected: '1' });
    expect(menuKeys(p!, choices[2]!, 'horizontal')).toEqual([RIGHT, RIGHT, '\r']);
    screen.dispose();
  });

  it('follows the highlight after it moved (one Right arrow pressed on the real CLI)', async () => {
    const screen = await replay('permission-dialog-second-option-highlighted');
    const p = parseRowDialog(screen.viewport(), question, (row) => screen.backgrounds(row));
    expect(p?.selected).toBe('2');
    expect(menuKeys(p!, choices[0]!, 'horizontal')).toEqual([LEFT, '\r']);
    expect(menuKeys(p!, choices[2]!, 'horizontal')).toEqual([RIGHT, '\r']);
    screen.dispose();
  });

  it('stops at the key hints even when only two spaces separate them (80 columns)', () => {
    const lines = fs.readFileSync(new URL('80x24-permission-dialog.txt', OPENCODE), 'utf8').split('\n');
    expect(parseRowDialog(lines, question)).toEqual({ prompt: '△ Permission required', choices, selected: null });
  });

  it('does not take a command with double spaces in the dialog for the choice row', () => {
    const lines = ['  ┃  △ Permission required', '  ┃  $ echo a   b', '  ┃', '  ┃  $ printf x   y', '  ┃'];
    expect(parseRowDialog(lines, question)?.choices.map((c) => c.label)).toEqual(['$ printf x', 'y']);
    expect(parseRowDialog([...lines.slice(0, 4), '  ┃   Allow once   Reject   ctrl+f fullscreen'], question)?.choices.map((c) => c.label)).toEqual([
      'Allow once',
      'Reject',
    ]);
    expect(parseRowDialog(['  ┃  $ ls'], question)).toBeNull();
    // A footer under the box (cwd, version) is not the dialog's.
    const boxed = ['  ┃  △ Permission required', '  ┃   Allow once   Reject', '  ┃', '   /tmp/project        1.18.33'];
    expect(parseRowDialog(boxed, question)?.choices.map((c) => c.label)).toEqual(['Allow once', 'Reject']);
  });

  it('without a readable highlight, moves from the first choice (where the dialog opens)', () => {
    expect(menuKeys({ prompt: 'q', choices, selected: null }, choices[2]!, 'horizontal')).toEqual([RIGHT, RIGHT, '\r']);
  });
});

describe('answerKeys: how each CLI takes an answer', () => {
  const choices = [
    { key: '1', label: 'Yes' },
    { key: '2', label: "Yes, and don't ask again" },
    { key: '3', label: 'No, and tell it what to do differently (Esc to stop)' },
  ];
  const prompt = { prompt: 'q', choices, selected: '1' };
  const profile = (id: string) => findProfile(id)!.permission!;

  it('types the digit for Claude Code, Codex and Gemini CLI', () => {
    for (const id of ['claude', 'codex', 'gemini']) expect(answerKeys(profile(id), prompt, choices[2]!)).toEqual(['3']);
  });

  it('denies Copilot CLI with Esc alone (Enter on its No choice asks for feedback) and approves by arrows', () => {
    expect(answerKeys(profile('copilot'), prompt, choices[2]!)).toEqual(['\x1b']);
    expect(answerKeys(profile('copilot'), { ...prompt, selected: '3' }, choices[0]!)).toEqual(['\x1b[A', '\x1b[A', '\r']);
  });

  it('moves along the row for OpenCode', () => {
    const row = [
      { key: '1', label: 'Allow once' },
      { key: '2', label: 'Allow always' },
      { key: '3', label: 'Reject' },
    ];
    expect(answerKeys(profile('opencode'), { prompt: 'q', choices: row, selected: '2' }, row[2]!)).toEqual([RIGHT, '\r']);
  });
});
