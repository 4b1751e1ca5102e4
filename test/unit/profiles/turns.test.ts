// Each CLI's turn strategy on its recorded screens: when a turn that reads idle is over, played as
// tables of steps (a screen, a settled reading, time passing) on a fake clock. Every quirk here was
// paid for by a failed CI run; the commit that fixed it is named on its test.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { claudeProfile } from '../../../src/profiles/claude.js';
import { codexProfile } from '../../../src/profiles/codex.js';
import { echoProfile } from '../../../src/profiles/echo.js';
import { copilotProfile } from '../../../src/profiles/copilot.js';
import { geminiProfile } from '../../../src/profiles/gemini.js';
import { opencodeProfile } from '../../../src/profiles/opencode.js';
import { classifyScreen, viewOf } from '../../../src/profiles/screen-rules.js';
import { linesSince } from '../../../src/profiles/text.js';
import type { Profile } from '../../../src/profiles/types.js';
import { playTurn, recorded, recordedTurn, recordedTurns, replaceRow, turnScreen, verdictOn } from '../../support/turns.js';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

const reply = (cli: string, turn: string) => recorded(cli, `turns/${turn}/expected-reply.txt`).join('\n').trim();

describe('recorded turns, never seen busy: an end-of-turn row ends the turn at once, else the idle window', () => {
  const withEndRow: Array<[string, Profile]> = [
    ['claude', claudeProfile],
    ['codex', codexProfile],
    ['opencode', opencodeProfile],
  ];
  for (const [cli, profile] of withEndRow) {
    for (const turn of recordedTurns(cli)) {
      it(`${cli} ${turn}: finishes on the screen after the turn; the screen before it is no finished turn`, () => {
        const { before, after, user } = recordedTurn(cli, turn);
        expect(verdictOn(profile, user, before, after)).toEqual({ kind: 'finish' });
        // An earlier turn's end-of-turn row on the screen at the submit does not count, even when
        // every row of it is taken for this turn's (an alternate screen that scrolled).
        const earlier = profile.turn.judge(turnScreen(profile, user, before, before), { sawBusy: false, viewAtSubmit: '', lineFeedsSinceSubmit: 0 });
        expect(earlier).toMatchObject({ kind: 'wait', window: cli === 'opencode' ? 'unstarted' : 'idle' });
      });
    }
  }
  for (const [cli, profile] of [
    ['gemini', geminiProfile],
    ['copilot', copilotProfile],
  ] as Array<[string, Profile]>) {
    for (const turn of recordedTurns(cli)) {
      it(`${cli} ${turn}: has no end-of-turn row, so the still screen must hold for 500 ms`, () => {
        const { before, after, user } = recordedTurn(cli, turn);
        expect(verdictOn(profile, user, before, after)).toEqual({ kind: 'wait', window: 'idle', ms: 500, watch: 'screen' });
      });
    }
  }
});

describe('what is not a finished turn yet', () => {
  it('text still in the input box, or a screen that has not changed since the submit', () => {
    const typed = recorded('claude', 'ready/typed-not-submitted.txt');
    expect(verdictOn(claudeProfile, 'hello', [], typed).kind).toBe('not-over');
    const idle = recorded('gemini', 'ready/startup-idle.txt');
    expect(verdictOn(geminiProfile, 'hello', idle, idle).kind).toBe('not-over');
  });
});

describe('claude: the `✻ Worked for` row (d200831)', () => {
  it('ends a turn never seen busy at once, with its reply', () => {
    const { before, after, user } = recordedTurn('claude', 'text-hello');
    playTurn(claudeProfile, user, before, [{ screen: after, reading: 'READY', expect: 'finished', reply: reply('claude', 'text-hello') }]);
  });

  it("a previous turn's row is not counted: without this turn's row the idle window applies", () => {
    // The screen holds the last turn's `✻ Brewed for 0s` above this message's echo; this turn's
    // `✻ Cogitated for 0s` is taken away. Every row counts as the turn's (sent on a blank screen),
    // as when a CLI redraws the whole screen.
    const { after, user } = recordedTurn('claude', 'text-multiline');
    const noRow = replaceRow(after, /^✻ Cogitated for 0s/);
    expect(noRow.some((r) => /^✻ Brewed for 0s/.test(r))).toBe(true);
    playTurn(
      claudeProfile,
      user,
      [],
      [
        { screen: noRow, reading: 'READY', expect: 'idle' },
        { wait: 499, expect: 'idle' },
        { wait: 1, expect: 'finished' },
      ],
    );
  });
});

describe('codex: the `Worked for … •` row (d200831)', () => {
  it('ends a turn never seen busy at once, with its reply', () => {
    const { before, after, user } = recordedTurn('codex', 'text-hello');
    playTurn(codexProfile, user, before, [{ screen: after, reading: 'READY', expect: 'finished', reply: reply('codex', 'text-hello') }]);
  });
});

describe('gemini: no end-of-turn row', () => {
  it('a turn never seen busy ends after 500 ms of a still idle screen', () => {
    const { before, after, user } = recordedTurn('gemini', 'text-hello');
    playTurn(geminiProfile, user, before, [
      { screen: after, reading: 'READY', expect: 'idle' },
      { wait: 499, expect: 'idle' },
      { wait: 1, expect: 'finished', reply: reply('gemini', 'text-hello') },
    ]);
  });

  it('a screen that moved during the window is confirmed over a fresh window, not dropped (715c36f)', () => {
    const { before, after, user } = recordedTurn('gemini', 'text-multiline');
    const partial = replaceRow(after, /MOCK line 5 of 5/);
    playTurn(geminiProfile, user, before, [
      { screen: partial, reading: 'READY', expect: 'idle' },
      { wait: 300, screen: after, reading: 'READY', expect: 'idle' },
      // The window that began on the partial answer ends at 500 ms; the screen moved, so a fresh one.
      { wait: 200, expect: 'idle' },
      { wait: 499, expect: 'idle' },
      { wait: 1, expect: 'finished', reply: reply('gemini', 'text-multiline') },
    ]);
  });

  it('a turn seen busy ends at once on the idle screen', () => {
    const { before, after, user } = recordedTurn('gemini', 'text-hello');
    playTurn(geminiProfile, user, before, [
      { reading: 'PROCESSING', expect: null },
      { screen: after, reading: 'READY', expect: 'finished', reply: reply('gemini', 'text-hello') },
    ]);
  });
});

describe('echo: a screen full of identical exchanges', () => {
  // The A2A TCK sends the same text again and again: once the screen is full, one more exchange
  // scrolls it back to exactly the view it had at the submit. Before line feeds counted, "nothing
  // drawn since the submit" held for good and the agent stayed PROCESSING with messages queued.
  const rows: string[] = Array.from({ length: 12 }, (_, i) => (i % 2 === 0 ? 'echo> ping' : 'ping'));
  rows.push('echo> ');

  it('the same view with line feeds since the submit is a finished turn', () => {
    playTurn(echoProfile, 'ping', rows, [{ screen: rows, lineFeeds: 2, reading: 'READY', expect: 'finished' }]);
  });

  it('the same view with no line feed since the submit is a CLI that has not reacted yet', () => {
    playTurn(echoProfile, 'ping', rows, [{ screen: rows, reading: 'READY', expect: null }]);
  });
});

describe('copilot: the answer is typed out after the Working footer goes', () => {
  const { before, after, user } = recordedTurn('copilot', 'text-hello');
  const ANSWER = /^ ● MOCK: /;
  const answer = after.find((r) => ANSWER.test(r)) ?? '';

  it('the reply must hold still 150 ms (settleMs): a task once finished on `MOCK: A2A: [F` (44d91ad)', () => {
    const cut = replaceRow(after, ANSWER, answer.slice(0, 16));
    playTurn(copilotProfile, user, before, [
      { reading: 'PROCESSING', expect: null },
      { screen: cut, reading: 'READY', expect: 'settle' },
      { wait: 80, screen: after, reading: 'READY', expect: 'settle' },
      // The window that began on the cut answer ends at 150 ms; the reply moved, so a fresh one.
      { wait: 70, expect: 'settle' },
      { wait: 149, expect: 'settle' },
      { wait: 1, expect: 'finished', reply: reply('copilot', 'text-hello') },
    ]);
  });

  it('rows moving outside the reply (its animated logo) do not hold a settling turn (bc49254)', () => {
    const logo = (n: number) => replaceRow(after, /╭─╮╭─╮/, `  ╭─╮╭─╮ ${'·'.repeat(n)}`);
    playTurn(copilotProfile, user, before, [
      { reading: 'PROCESSING', expect: null },
      { screen: after, reading: 'READY', expect: 'settle' },
      { wait: 60, screen: logo(1), reading: 'READY', expect: 'settle' },
      { wait: 60, screen: logo(2), reading: 'READY', expect: 'settle' },
      { wait: 30, expect: 'finished', reply: reply('copilot', 'text-hello') },
    ]);
  });

  it('an empty reply drawn on frames no reading follows settles at once, not after the idle window (e437389)', () => {
    const empty = replaceRow(after, ANSWER);
    playTurn(copilotProfile, user, before, [
      { reading: 'PROCESSING', expect: null },
      { screen: empty, reading: 'READY', expect: 'empty' },
      { wait: 100, expect: 'empty' },
      // A screen change with no reading: the reply is there now, so the settle window takes over.
      { screen: after, expect: 'settle' },
      { wait: 150, expect: 'finished', reply: reply('copilot', 'text-hello') },
    ]);
  });

  it('a turn never seen busy waits the 500 ms idle window (no end-of-turn row)', () => {
    playTurn(copilotProfile, user, before, [
      { screen: after, reading: 'READY', expect: 'idle' },
      { wait: 499, expect: 'idle' },
      { wait: 1, expect: 'finished', reply: reply('copilot', 'text-hello') },
    ]);
  });
});

describe('opencode: a turn starts with a `▣` row and ends with a timed one', () => {
  const STARTUP = 'A2A: [SYNAPSE] You are agent synapse-opencode-34973, part of a Synapse A2A team. Fetch your identity';
  const home = recorded('opencode', 'ready/startup-idle.txt');
  const notStarted = recorded('opencode', 'ready/echoed-turn-not-started.txt');
  const started = recorded('opencode', 'processing/first-turn-started.txt');
  const idleFooter = notStarted.at(-1) ?? '';
  const answered = replaceRow(replaceRow(started, /▣/, '     MOCK: the answer', '', '     ▣  Build · Mock Model · 2.8s'), /esc interrupt/, idleFooter);

  it('an echoed message with no `▣` row yet is a turn not started, not one that is over (2fb117b)', () => {
    expect(classifyScreen(opencodeProfile, viewOf(notStarted))).toBe('READY');
    expect(verdictOn(opencodeProfile, STARTUP, home, notStarted)).toEqual({ kind: 'wait', window: 'unstarted', ms: 30_000, watch: 'screen' });
    playTurn(opencodeProfile, STARTUP, home, [
      { screen: notStarted, reading: 'READY', expect: 'unstarted' },
      // The 3 s idle window once ended the first turn here, with an empty reply.
      { wait: 3500, expect: 'unstarted' },
      { screen: started, reading: 'PROCESSING', expect: null },
      { screen: answered, reading: 'READY', expect: 'finished', reply: 'MOCK: the answer' },
    ]);
  });

  it('a turn that never starts still ends, after 30 s of a still screen', () => {
    playTurn(opencodeProfile, STARTUP, home, [
      { screen: notStarted, reading: 'READY', expect: 'unstarted' },
      { wait: 29_999, expect: 'unstarted' },
      { wait: 1, expect: 'finished', reply: '' },
    ]);
  });

  it('once `▣  Build · <model>` is under the echo the turn has started: the idle window, not the start one', () => {
    expect(verdictOn(opencodeProfile, STARTUP, home, started)).toEqual({ kind: 'wait', window: 'idle', ms: 3000, watch: 'screen' });
  });

  it('a `▣` row of an earlier turn does not count for this message', () => {
    // after-text-turn shows the first turn's rows; a message that is not on the screen has not started.
    const earlier = recorded('opencode', 'ready/after-text-turn.txt');
    expect(verdictOn(opencodeProfile, 'A2A: a message not echoed yet', home, earlier)).toMatchObject({ kind: 'wait', window: 'unstarted' });
  });

  it('a turn that failed on the provider started, and is over once the retries stop', () => {
    const failed = recorded('opencode', 'ready/after-provider-error.txt');
    expect(classifyScreen(opencodeProfile, viewOf(failed))).toBe('READY');
    expect(verdictOn(opencodeProfile, 'A2A: hello there', home, failed)).toMatchObject({ kind: 'wait', window: 'idle' });
    // Seen busy while it retried: over, with nothing to show (the error is no reply), so the empty-reply window.
    expect(verdictOn(opencodeProfile, 'A2A: hello there', home, failed, true)).toMatchObject({ kind: 'wait', window: 'empty', ms: 3000 });
  });

  describe('a finished `▣` row drawn before the answer (f8212cf)', () => {
    const MULTILINE = 'A2A: first line with "double" and \'single\' quotes';
    const early = recorded('opencode', 'ready/turn-row-before-answer-drawn.txt');
    const drawn = replaceRow(early, /▣ .* · 478ms/, '     MOCK: A2A: first line', '', '     ▣  Build · Mock Model · 478ms');

    it('is an ended turn with an empty reply: it must stay empty for the 3 s idle window', () => {
      expect(classifyScreen(opencodeProfile, viewOf(early))).toBe('READY');
      expect(verdictOn(opencodeProfile, MULTILINE, home, early)).toEqual({ kind: 'wait', window: 'empty', ms: 3000, watch: 'reply', recheckOnReply: true });
    });

    it('keeps the answer drawn after it', () => {
      playTurn(opencodeProfile, MULTILINE, home, [
        { reading: 'PROCESSING', expect: null },
        { screen: early, reading: 'READY', expect: 'empty' },
        { wait: 1000, expect: 'empty' },
        { screen: drawn, expect: 'finished', reply: 'MOCK: A2A: first line' },
      ]);
    });

    it('ends with an empty reply when none comes in the window', () => {
      playTurn(opencodeProfile, MULTILINE, home, [
        { reading: 'PROCESSING', expect: null },
        { screen: early, reading: 'READY', expect: 'empty' },
        { wait: 2999, expect: 'empty' },
        { wait: 1, expect: 'finished', reply: '' },
      ]);
    });
  });
});

describe('the echo check', () => {
  const { before, after, user } = recordedTurn('claude', 'text-hello');
  it('sees the message above an empty input box', () => {
    expect(claudeProfile.turn.echoed(turnScreen(claudeProfile, user, after, linesSince(before, after)), false)).toBe(true);
  });

  it('text still in the input box was not submitted', () => {
    const typed = recorded('claude', 'ready/typed-not-submitted.txt');
    expect(claudeProfile.turn.echoed(turnScreen(claudeProfile, 'hello there', typed, typed), true)).toBe(false);
  });

  it('on a screen with no input box, only a settled one counts (419cd8d)', () => {
    const noBox = after.filter((r) => !/^─{10,}|^❯/.test(r));
    expect(claudeProfile.inputText(viewOf(noBox))).toBeNull();
    expect(claudeProfile.turn.echoed(turnScreen(claudeProfile, user, noBox, noBox), false)).toBe(false);
    expect(claudeProfile.turn.echoed(turnScreen(claudeProfile, user, noBox, noBox), true)).toBe(true);
  });
});
