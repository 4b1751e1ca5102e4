import { describe, expect, it } from 'vitest';
import { geminiProfile } from '../../../src/profiles/gemini.js';
import { classifyScreen, viewOf } from '../../../src/profiles/screen-rules.js';

const TOP = '▄'.repeat(80);
const BOTTOM = '▀'.repeat(80);
const FOOTER = [' workspace (/directory)      sandbox      /model', ' /tmp/project                no sandbox   Auto'];

describe('gemini input box', () => {
  it('reads wrapped unsent input spread over several rows (a lost CR must not look delivered)', () => {
    const screen = [
      '                ? for shortcuts',
      '─'.repeat(80),
      ' Shift+Tab to accept edits',
      TOP,
      ' > A2A: [SYNAPSE] You are agent synapse-gemini-8110, part of',
      '   a Synapse A2A team. Fetch your identity with curl',
      '',
      BOTTOM,
      ...FOOTER,
    ];
    const view = viewOf(screen);
    expect(geminiProfile.inputText(view)).toContain('You are agent synapse-gemini-8110');
    expect(geminiProfile.inputText(view)).toContain('Fetch your identity');
    expect(classifyScreen(geminiProfile, view)).toBe('READY');
  });

  it('takes the `*` prompt of YOLO mode as the input box', () => {
    const screen = ['                ? for shortcuts', ' YOLO Ctrl+Y', TOP, ' *   Type your message or @path/to/file', BOTTOM, ...FOOTER];
    const view = viewOf(screen);
    expect(classifyScreen(geminiProfile, view)).toBe('READY');
    expect(geminiProfile.inputText(view)).toBe('');
  });
});
