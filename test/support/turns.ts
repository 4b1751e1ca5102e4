// Drives a profile's turn strategy over recorded screens: one verdict at a time, or a whole turn as a
// table of steps (a screen shown, a settled reading, time passing) on vitest's fake clock.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { vi } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { viewOf } from '../../src/profiles/screen-rules.js';
import { linesSince } from '../../src/profiles/text.js';
import type { Profile, TurnScreen, TurnVerdict } from '../../src/profiles/types.js';
import type { ScreenStatus } from '../../src/runtime/screen-status.js';
import { TurnWatch } from '../../src/runtime/turn-watch.js';

const SCREENS = fileURLToPath(new URL('../fixtures/screens/', import.meta.url));

/** The folder of `cli`'s recorded screens: its one recorded version. */
function versionDir(cli: string): string {
  const versions = fs.readdirSync(path.join(SCREENS, cli)).filter((d) => fs.statSync(path.join(SCREENS, cli, d)).isDirectory());
  if (versions.length !== 1) throw new Error(`expected one recorded version of ${cli}, found ${versions.join(', ') || 'none'}`);
  return path.join(SCREENS, cli, versions[0]!);
}

/** The rows of a recorded screen of `cli`, e.g. `ready/startup-idle.txt`. */
export function recorded(cli: string, rel: string): string[] {
  return fs
    .readFileSync(path.join(versionDir(cli), rel), 'utf8')
    .replace(/\n$/, '')
    .split('\n');
}

/** A recorded turn: the screen before the message, after its turn, and the message. */
export function recordedTurn(cli: string, turn: string): { before: string[]; after: string[]; user: string } {
  return {
    before: recorded(cli, `turns/${turn}/before.txt`),
    after: recorded(cli, `turns/${turn}/after.txt`),
    user: recorded(cli, `turns/${turn}/user.txt`).join('\n'),
  };
}

/** Every recorded turn of `cli` that has an expected reply. */
export function recordedTurns(cli: string): string[] {
  const dir = path.join(versionDir(cli), 'turns');
  return fs.readdirSync(dir).filter((t) => fs.existsSync(path.join(dir, t, 'expected-reply.txt')));
}

/** `rows` with the first row matching `row` replaced by `by` (several rows, or none). */
export function replaceRow(rows: string[], row: RegExp, ...by: string[]): string[] {
  const i = rows.findIndex((r) => row.test(r));
  if (i < 0) throw new Error(`no row matches ${row}`);
  return [...rows.slice(0, i), ...by, ...rows.slice(i + 1)];
}

/** This turn's screen as the delivery loop would show it: `rows` on screen, the turn's lines since `before`. */
export function turnScreen(profile: Profile, framed: string, rows: string[], lines: string[]): TurnScreen {
  const view = viewOf(rows);
  return { framed, view, inputText: profile.inputText(view), lines: () => lines, reply: () => profile.cleanOutput(lines, framed) };
}

/** The strategy's verdict on an idle screen `rows`, for a message sent on screen `before`. */
export function verdictOn(profile: Profile, framed: string, before: string[], rows: string[], sawBusy = false): TurnVerdict {
  return profile.turn.judge(turnScreen(profile, framed, rows, linesSince(before, rows)), { sawBusy, viewAtSubmit: before.join('\n'), lineFeedsSinceSubmit: 0 });
}

/**
 * One step of a turn: `wait` ms pass, then `screen` shows (a screen change), then a settled
 * `reading` of it comes; afterwards `expect` is the window that runs (its name), null for none,
 * or `finished` (the turn is over; `reply` is what the task got).
 */
export interface TurnStep {
  screen?: string[];
  /** Line feeds drawn with `screen` (a view can scroll back to what it was). */
  lineFeeds?: number;
  reading?: ScreenStatus;
  wait?: number;
  expect: string | null;
  reply?: string;
}

/**
 * Plays `steps` of one message's turn (submitted on screen `before`) through a `TurnWatch` with
 * the profile's strategy, on vitest's fake clock; fails at the first step whose outcome differs,
 * naming it. Call with fake timers on (`vi.useFakeTimers()`).
 */
export function playTurn(profile: Profile, framed: string, before: string[], steps: TurnStep[]): void {
  let rows = before;
  let seq = 0;
  let lineFeeds = 0;
  let status: ScreenStatus | undefined = 'READY';
  let reply: string | null = null;
  const screen = {
    get seq() {
      return seq;
    },
    get lineFeeds() {
      return lineFeeds;
    },
    viewport: () => rows,
    // Recorded frames: no scrollback is ever trimmed.
    linesAt: () => ({ lines: rows, origin: { epoch: 0, first: 0 } }),
  };
  const watch: TurnWatch = new TurnWatch(
    { profile, screen, clock: systemClock, status: () => status },
    framed,
    { lines: before, origin: { epoch: 0, first: 0 } },
    () => {
      reply = watch.reply();
      watch.stop();
    },
  );
  steps.forEach((step, i) => {
    if (reply !== null) throw new Error(`step ${i + 1}: the turn already finished with ${JSON.stringify(reply)}`);
    if (step.wait) vi.advanceTimersByTime(step.wait);
    if (step.screen && reply === null) {
      rows = step.screen;
      seq++;
      lineFeeds += step.lineFeeds ?? 0;
      watch.changed();
    }
    if (step.reading && reply === null) {
      status = step.reading;
      if (step.reading === 'READY') watch.idle();
      else watch.busy();
    }
    const got = reply !== null ? 'finished' : watch.waiting;
    if (got !== step.expect) throw new Error(`step ${i + 1}: expected ${step.expect ?? 'no window'}, got ${got ?? 'no window'}`);
    if (step.reply !== undefined && reply !== step.reply)
      throw new Error(`step ${i + 1}: expected the reply ${JSON.stringify(step.reply)}, got ${JSON.stringify(reply)}`);
  });
}
