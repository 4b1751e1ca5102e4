import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { copilotProfile } from '../../../src/profiles/copilot.js';
import { menuKeys, parseNumberedDialog, pickChoice } from '../../../src/profiles/permission.js';
import { classifyScreen, viewOf } from '../../../src/profiles/screen-rules.js';

const DIR = fileURLToPath(new URL('../../fixtures/screens/copilot/1.0.102/', import.meta.url));
const STATUSES = { ready: 'READY', processing: 'PROCESSING', waiting: 'WAITING' } as const;

function screen(rel: string): string[] {
  return fs.readFileSync(path.join(DIR, rel), 'utf8').replace(/\n$/, '').split('\n');
}
const classify = (lines: string[]) => classifyScreen(copilotProfile, viewOf(lines));
const txt = (status: string) => fs.readdirSync(path.join(DIR, status)).filter((f) => f.endsWith('.txt'));

describe('copilot profile on screens recorded from copilot 1.0.102 (BYOK, mock model)', () => {
  for (const [status, expected] of Object.entries(STATUSES)) {
    for (const f of txt(status)) it(`reads ${status}/${f} as ${expected}`, () => expect(classify(screen(`${status}/${f}`))).toBe(expected));
  }
  for (const f of txt('starting')) it(`never reads start-up screen starting/${f} as READY`, () => expect(classify(screen(`starting/${f}`))).not.toBe('READY'));

  it('treats the idle box of a CLI with no GitHub login as not ready', () => {
    expect(classify(screen('starting/not-logged-in-idle.txt'))).toBeNull();
    expect(classify(screen('starting/not-logged-in-after-message.txt'))).toBeNull();
  });

  it('reads the folder-trust dialog at start-up as WAITING, so a human can answer it', () => {
    expect(classify(screen('starting/trust-folder-dialog.txt'))).toBe('WAITING');
  });

  it('reads the input box text, and null while a dialog hides it', () => {
    const text = (rel: string) => copilotProfile.inputText(viewOf(screen(rel)));
    expect(text('ready/startup-idle.txt')).toBe('');
    expect(text('ready/typed-not-submitted.txt')).toBe('hello there');
    expect(text('ready/multiline-typed-not-submitted.txt')).toBe('line one\nline two');
    expect(text('ready/after-double-esc-interrupt.txt')).toBe('interrupt esc-150-esc [[wait: 6]]');
    expect(text('waiting/permission-dialog.txt')).toBeNull();
  });

  it('parses the approval dialog and answers it with arrows + Enter', () => {
    expect(copilotProfile.permission?.select).toBe('arrows');
    const question = copilotProfile.permission!.question;
    const p = parseNumberedDialog(screen('waiting/permission-dialog.txt'), question);
    expect(p?.prompt).toBe('Do you want to run this command?');
    expect(p?.selected).toBe('1');
    expect(p?.choices.map((c) => c.key)).toEqual(['1', '2', '3']);
    expect(p?.choices[0]?.label).toBe('Yes');
    expect(p?.choices[1]?.label).toBe("Yes, and don't ask again for `touch` in this directory (~/project)");
    // The footer row (`↑/↓ to navigate · …`) ends the menu, it is not part of the last label.
    expect(p?.choices[2]?.label).toBe('No, and tell Copilot what to do differently (Esc to stop)');
    const no = pickChoice(p!.choices, 'no');
    expect(no?.key).toBe('3');
    expect(menuKeys(p!, no!)).toEqual(['\x1b[B', '\x1b[B', '\r']);
    expect(parseNumberedDialog(screen('waiting/permission-dialog-second-option-highlighted.txt'), question)?.selected).toBe('2');
    const trust = parseNumberedDialog(screen('starting/trust-folder-dialog.txt'), question);
    expect(trust?.choices.map((c) => c.label)).toEqual(['Yes', 'Yes, and remember this folder for future sessions', 'No (Esc)']);
  });

  it('extracts the reply of a recorded turn', () => {
    const before = screen('turns/text-hello/before.txt');
    const after = screen('turns/text-hello/after.txt');
    let i = 0;
    while (i < before.length && before[i] === after[i]) i++;
    const expected = fs.readFileSync(path.join(DIR, 'turns/text-hello/expected-reply.txt'), 'utf8').trim();
    expect(copilotProfile.cleanOutput(after.slice(i), 'hello there')).toBe(expected);
  });

  it('keeps continuation rows and drops tool rows, the scrollbar and the input block', () => {
    const multi = copilotProfile.cleanOutput(screen('ready/after-multiline-turn.txt'), 'five lines [[lines: 5]]');
    expect(multi.split('\n')).toEqual([
      expect.stringMatching(/^MOCK: \S+ five lines \[\[lines: 5\]\]$/),
      'MOCK line 1 of 5',
      'MOCK line 2 of 5',
      'MOCK line 3 of 5',
      'MOCK line 4 of 5',
      'MOCK line 5 of 5',
    ]);
    expect(copilotProfile.cleanOutput(screen('ready/after-tool-approved.txt'), 'run it [[sh: touch made.txt && echo hi]]')).toBe('MOCK: tool said hi');
  });
});

// Constructed from documentation, not recorded: the wording in the docs and in issues from older
// versions differs from what 1.0.102 drew, and the rules must still hold for it.
describe('copilot profile on screens constructed from the documentation', () => {
  it('reads the trust prompt as docs.github.com describes it as WAITING', () => {
    // https://docs.github.com/en/enterprise-cloud@latest/copilot/how-tos/copilot-cli/use-copilot-cli/overview
    const docs = [
      '│ Do you trust the files in this folder?                     │',
      '│                                                            │',
      '│ ❯ 1. Yes, proceed                                          │',
      '│   2. Yes, and remember this folder for future sessions     │',
      '│   3. No, exit (Esc)                                        │',
      '╰────────────────────────────────────────────────────────────╯',
    ];
    expect(classify(docs)).toBe('WAITING');
    expect(parseNumberedDialog(docs, copilotProfile.permission!.question)?.choices.map((c) => c.label)).toEqual([
      'Yes, proceed',
      'Yes, and remember this folder for future sessions',
      'No, exit (Esc)',
    ]);
  });

  it('reads the command approval box quoted in github/copilot-cli#2693 / #2955 as WAITING', () => {
    // The box header is the tool call's intent; the question is "Do you want to run this command?".
    const issue = [
      '● View XXX command script (shell)',
      '  └ cat /Users/XXX/file 2>/dev/null | head -80',
      '',
      '╭──────────────────────────────────────────────────╮',
      '│ View XXX command script                          │',
      '│ ──────────────────────────────────────────────── │',
      '│ ╭──────────────────────────────────────────────╮ │',
      '│ │ cat /Users/XXX/file 2>/dev/null | head -80   │ │',
      '│ ╰──────────────────────────────────────────────╯ │',
      '│                                                  │',
      '│ Do you want to run this command?                 │',
      '│                                                  │',
      '│ ❯ 1. Yes                                         │',
      '│   2. No, and tell Copilot what to do differently │',
      '╰──────────────────────────────────────────────────╯',
    ];
    expect(classify(issue)).toBe('WAITING');
    expect(parseNumberedDialog(issue, copilotProfile.permission!.question)?.choices.map((c) => c.key)).toEqual(['1', '2']);
  });

  it('has the documented flags: --allow-all to auto-approve, --resume/--continue to resume', () => {
    // https://docs.github.com/en/copilot/reference/copilot-cli-reference/cli-programmatic-reference and `copilot --help`
    expect(copilotProfile.autoApproveArgs).toEqual(['--allow-all']);
    expect(copilotProfile.resumeFlags).toEqual(expect.arrayContaining(['--resume', '--continue']));
    // Driven live (BYOK, offline) by test/e2e/copilot.test.ts.
    expect(copilotProfile.verified ?? 'live').toBe('live');
  });
});
