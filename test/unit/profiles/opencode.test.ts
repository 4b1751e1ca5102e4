// OpenCode rules that the generic screen tests (screens.test.ts) do not cover: the footer while the
// provider is retried, and what of it stays out of the reply. When its turns start and end:
// turns.test.ts.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { opencodeProfile } from '../../../src/profiles/opencode.js';
import { classifyScreen, viewOf } from '../../../src/profiles/screen-rules.js';

const DIR = fileURLToPath(new URL('../../fixtures/screens/opencode/1.18.33/', import.meta.url));
const screen = (rel: string) => fs.readFileSync(path.join(DIR, rel), 'utf8').replace(/\n$/, '').split('\n');

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
