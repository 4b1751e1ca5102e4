// OpenCode rules that the generic screen tests (screens.test.ts) do not cover: whether a turn has
// started, the footer while the provider is retried, and what of it stays out of the reply.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { opencodeProfile } from '../../../src/profiles/opencode.js';
import { classifyScreen, viewOf } from '../../../src/profiles/screen-rules.js';

const DIR = fileURLToPath(new URL('../../fixtures/screens/opencode/1.18.33/', import.meta.url));
const screen = (rel: string) => fs.readFileSync(path.join(DIR, rel), 'utf8').replace(/\n$/, '').split('\n');
const STARTUP = 'A2A: [SYNAPSE] You are agent synapse-opencode-34973, part of a Synapse A2A team. Fetch your identity';

describe('opencode profile: has the turn started?', () => {
  it('not while the echoed message sits under an idle footer with no ▣ row', () => {
    const lines = screen('ready/echoed-turn-not-started.txt');
    expect(classifyScreen(opencodeProfile, viewOf(lines))).toBe('READY');
    expect(opencodeProfile.turnStarted!(lines, STARTUP)).toBe(false);
    expect(opencodeProfile.turnEnded!(lines, STARTUP)).toBe(false);
  });

  it('yes once `▣  Build · <model>` is drawn under the echo', () => {
    expect(opencodeProfile.turnStarted!(screen('processing/first-turn-started.txt'), STARTUP)).toBe(true);
  });

  it('a ▣ row of an earlier turn does not count for this message', () => {
    // after-text-turn shows the first turn's ▣ row; a message that is not on the screen has not started.
    expect(opencodeProfile.turnStarted!(screen('ready/after-text-turn.txt'), 'A2A: a message not echoed yet')).toBe(false);
  });

  it('a turn that failed on the provider started, and is over once the retries stop', () => {
    const lines = screen('ready/after-provider-error.txt');
    expect(classifyScreen(opencodeProfile, viewOf(lines))).toBe('READY');
    expect(opencodeProfile.turnStarted!(lines, 'A2A: hello there')).toBe(true);
  });
});

describe('opencode profile: the footer while the provider is retried', () => {
  it('reads it as PROCESSING, also when its interrupt hint is wrapped into fragments', () => {
    expect(classifyScreen(opencodeProfile, viewOf(screen('processing/provider-retrying.txt')))).toBe('PROCESSING');
    expect(classifyScreen(opencodeProfile, viewOf(screen('processing/provider-retrying-footer-wrapped.txt')))).toBe('PROCESSING');
  });

  it('keeps the retry footer out of the reply', () => {
    expect(opencodeProfile.cleanOutput(screen('processing/provider-retrying.txt'), 'A2A: hello there')).toBe('');
    expect(opencodeProfile.cleanOutput(screen('processing/provider-retrying-footer-wrapped.txt'), 'A2A: hello there')).toBe('');
  });
});

describe('opencode profile: a finished ▣ row drawn before the answer', () => {
  const MULTILINE = 'A2A: first line with "double" and \'single\' quotes';

  it('reads as an ended turn with an empty reply, which the delivery loop holds for the idle window', () => {
    // Seen in CI under load: the row came before the answer, and the task completed with "".
    const lines = screen('ready/turn-row-before-answer-drawn.txt');
    expect(classifyScreen(opencodeProfile, viewOf(lines))).toBe('READY');
    expect(opencodeProfile.turnEnded!(lines, MULTILINE)).toBe(true);
    expect(opencodeProfile.cleanOutput(lines, MULTILINE)).toBe('');
    expect(opencodeProfile.idleConfirmMs).toBeGreaterThanOrEqual(1000);
  });
});
