import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { echoProfile } from '../../../src/profiles/echo.js';
import type { Profile } from '../../../src/profiles/types.js';
import { systemClock } from '../../../src/clock.js';
import { ScreenStatusTracker, SETTLE_MS, type ScreenReading } from '../../../src/runtime/screen-status.js';

describe('ScreenStatusTracker', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  function setup(profile: Profile, isProtected: () => boolean = () => false) {
    let lines: string[] = [];
    let seq = 0;
    const tracker = new ScreenStatusTracker(profile, () => ({ lines, seq }), systemClock, isProtected);
    const changes: ScreenReading[] = [];
    tracker.on('change', (r) => changes.push(r));
    const show = (next: string[]) => {
      lines = next;
      seq++;
      tracker.onOutput();
    };
    return { tracker, changes, show };
  }

  it('reads the screen only after output has settled for the debounce time', () => {
    const { changes, show } = setup(echoProfile);
    show(['Echo agent', 'echo> ']);
    vi.advanceTimersByTime(SETTLE_MS - 5);
    expect(changes).toHaveLength(0);
    show(['Echo agent', 'echo> ']);
    vi.advanceTimersByTime(SETTLE_MS - 5);
    expect(changes).toHaveLength(0);
    vi.advanceTimersByTime(10);
    expect(changes.map((c) => c.status)).toEqual(['READY']);
  });

  it('skips half-drawn frames: a spinner shown and replaced within the debounce never counts', () => {
    const { changes, show } = setup(echoProfile);
    show(['echo> ']);
    vi.advanceTimersByTime(SETTLE_MS + 1);
    show(['echo> hi', '⠋ Thinking… (esc to interrupt)']);
    vi.advanceTimersByTime(5);
    show(['echo> hi', 'ECHO: hi', 'echo> ']);
    vi.advanceTimersByTime(SETTLE_MS + 1);
    expect(changes.map((c) => c.status)).toEqual(['READY']);
  });

  it('follows READY -> PROCESSING -> READY on the rendered screen', () => {
    const { changes, show } = setup(echoProfile);
    show(['echo> ']);
    vi.advanceTimersByTime(SETTLE_MS + 1);
    show(['echo> hi', '⠋ Thinking… (esc to interrupt)']);
    vi.advanceTimersByTime(SETTLE_MS + 1);
    show(['echo> hi', 'ECHO: hi', 'echo> ']);
    vi.advanceTimersByTime(SETTLE_MS + 1);
    expect(changes.map((c) => c.status)).toEqual(['READY', 'PROCESSING', 'READY']);
  });

  it('checks WAITING before PROCESSING', () => {
    const { changes, show } = setup(echoProfile);
    show(['echo> hi', '⠋ Thinking… (esc to interrupt)']);
    vi.advanceTimersByTime(SETTLE_MS + 1);
    show(['Allow this? run: rm -rf build', '❯ 1. Yes', '  2. Yes, and always allow it', '  3. No', '(esc to interrupt)']);
    vi.advanceTimersByTime(SETTLE_MS + 1);
    expect(changes.map((c) => c.status)).toEqual(['PROCESSING', 'WAITING']);
  });

  it('falls back on quiet time when the profile allows it and no rule matches', () => {
    const quiet: Profile = { ...echoProfile, status: { ...echoProfile.status, quietReadyMs: 1000 } };
    const { changes, show } = setup(quiet);
    show(['some unknown screen']);
    vi.advanceTimersByTime(SETTLE_MS + 1);
    expect(changes).toHaveLength(0);
    vi.advanceTimersByTime(500);
    show(['still unknown, new output']);
    vi.advanceTimersByTime(700);
    expect(changes).toHaveLength(0);
    vi.advanceTimersByTime(400);
    expect(changes.map((c) => c.status)).toEqual(['READY']);
  });

  it('waits the protection time before a quiet fallback while locks are held or a task runs', () => {
    const quiet: Profile = { ...echoProfile, status: { ...echoProfile.status, quietReadyMs: 1000, protectionMs: 5000 } };
    const { changes, show } = setup(quiet, () => true);
    show(['thinking silently']);
    vi.advanceTimersByTime(SETTLE_MS + 1);
    vi.advanceTimersByTime(3000);
    expect(changes).toHaveLength(0);
    vi.advanceTimersByTime(2100);
    expect(changes.map((c) => c.status)).toEqual(['READY']);
  });

  it('never assumes READY without a matching rule when the profile says so', () => {
    const { changes, show } = setup(echoProfile);
    show(['Echo agent — starting']);
    vi.advanceTimersByTime(60_000);
    expect(changes).toHaveLength(0);
  });
});
