import { squash } from './text.js';
import type { TurnStrategy, TurnVerdict } from './types.js';

/** How many squashed characters of the framed message must show on screen to count as its echo. */
const SIGNATURE_CHARS = 48;
/** Default `startMs`: a CLI that shows the message but never starts its turn. */
const DEFAULT_TURN_START_MS = 30_000;

/** The windows this strategy waits out (a custom strategy may name its own). */
type TurnWindow = 'settle' | 'empty' | 'idle' | 'unstarted';

/** What a CLI's screen says about its turns: the data `screenTurns` builds a strategy from. */
interface TurnRules {
  /**
   * When the CLI was never seen working after a submit, how long the idle screen must hold still
   * before the turn counts as finished (some CLIs redraw an empty prompt before they show a
   * spinner). Also how long an ended turn's empty reply must stay empty.
   */
  idleConfirmMs: number;
  /**
   * When the CLI was seen working (or drew its end-of-turn row), how long the reply read off the
   * idle screen must then stay the same before the turn counts as finished (changes elsewhere on
   * the screen do not count). Default 0: at once. Copilot CLI types the answer out in frames up
   * to ~80 ms apart after its `Working` footer is gone.
   */
  settleMs?: number;
  /**
   * Whether the lines a task produced show the CLI's own end-of-turn row after this message's
   * echo (Claude's `✻ Worked for 3s`, Codex's `Worked for 1s •`). A fast model can finish before
   * any reading sees the CLI busy; this ends the turn without the idle-confirm wait.
   */
  ended?(lines: string[], userText: string): boolean;
  /**
   * Whether the CLI has begun its turn for this message, read off the lines the task produced
   * (OpenCode draws `▣  Build · <model>` under the echo the moment it works on it). While it says
   * no, an idle-looking screen means the CLI took the message but has not started: OpenCode's
   * first turn sits like that for up to ~3.5 s. Such a screen ends the task only after `startMs`
   * of stillness.
   */
  started?(lines: string[], userText: string): boolean;
  /** With `started`: how long a still screen whose turn never started may hold (default 30 s). */
  startMs?: number;
}

/** A window of `ms`; none at all (finish now) when `ms` is 0. */
function windowOf(window: TurnWindow, ms: number, watch: 'reply' | 'screen', recheckOnReply = false): TurnVerdict {
  return ms === 0 ? { kind: 'finish' } : { kind: 'wait', window, ms, watch, ...(recheckOnReply ? { recheckOnReply } : {}) };
}

/**
 * The turn strategy read off the screen with a profile's rules. On an idle screen, in this order:
 * the message must have left the input box, and the screen must show that the turn happened.
 * Then a turn seen busy (or showing its end-of-turn row) is over: its reply must hold still for
 * `settleMs` ('settle'), or, when it is empty, stay empty for the idle window ('empty': under
 * load OpenCode draws its end-of-turn row before the answer), re-checked as soon as a reply is
 * drawn (Copilot CLI types it out on frames no reading follows). A turn not seen busy waits for
 * the whole screen to hold still: `startMs` while `started` says the turn has not begun
 * ('unstarted'), else the idle window ('idle').
 */
export function screenTurns(rules: TurnRules): TurnStrategy {
  return {
    echoed(turn, settled) {
      // Seen outside the input box: text still sitting in the box was not submitted. With no box
      // on the screen, only a settled screen counts: a half-drawn frame can show the pasted text
      // without the box around it while the CLI drops the submit key (Claude Code at start-up).
      const box = turn.inputText;
      if (box === null ? !settled : box !== '') return false;
      return squash(turn.lines().join('')).includes(squash(turn.framed).slice(0, SIGNATURE_CHARS));
    },
    judge(turn, seen) {
      if ((turn.inputText ?? '') !== '') return { kind: 'not-over', why: 'text in the input box' };
      if (!seen.sawBusy && turn.view.text === seen.viewAtSubmit && seen.lineFeedsSinceSubmit === 0)
        return { kind: 'not-over', why: 'nothing drawn since the submit' };
      if (seen.sawBusy || rules.ended?.(turn.lines(), turn.framed) === true) {
        // A settling turn watches only its reply: Copilot CLI animates its logo for seconds after
        // start-up, which would restart every window that watched the whole screen.
        return turn.reply() === '' ? windowOf('empty', rules.idleConfirmMs, 'reply', true) : windowOf('settle', rules.settleMs ?? 0, 'reply');
      }
      // Never seen busy: the whole screen must hold still, our only guard when nothing on it says
      // the turn ended.
      if (rules.started?.(turn.lines(), turn.framed) === false) {
        return windowOf('unstarted', Math.max(rules.idleConfirmMs, rules.startMs ?? DEFAULT_TURN_START_MS), 'screen');
      }
      return windowOf('idle', rules.idleConfirmMs, 'screen');
    },
    // The turn already ran and the screen is idle again: Copilot's Ctrl-C on an idle prompt would
    // arm "again to exit".
    onlySettling: (turn, seen) => seen.sawBusy && (turn.inputText ?? '') === '',
  };
}
