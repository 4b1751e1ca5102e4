import { describe, expect, it } from 'vitest';
import { sanitizeLabel, sanitizePeerText } from '../../../src/runtime/sanitize.js';

describe('sanitizePeerText', () => {
  it('removes ESC so a message cannot end a bracketed paste or send arrow keys', () => {
    expect(sanitizePeerText('a\x1b[201~b\x1b[Ac')).toBe('a[201~b[Ac');
  });
  it('removes C0 controls (Ctrl-C, BEL, backspace) but keeps newline and tab', () => {
    expect(sanitizePeerText('x\x03y\x07z\x08\tw\nv')).toBe('xyz\tw\nv');
  });
  it('turns CR and CRLF into newlines instead of Enter presses', () => {
    expect(sanitizePeerText('one\rtwo\r\nthree')).toBe('one\ntwo\nthree');
  });
  it('removes DEL and C1 controls such as the 8-bit CSI', () => {
    expect(sanitizePeerText('a\x7fb\u009b2Jc\u0085d')).toBe('ab2Jcd');
  });
  it('keeps ordinary unicode intact', () => {
    expect(sanitizePeerText('héllo — 世界 `$(x)` "q"')).toBe('héllo — 世界 `$(x)` "q"');
  });
});

describe('sanitizeLabel', () => {
  it('makes a one-line label without brackets or controls', () => {
    expect(sanitizeLabel('ev]il\n[name\x1b')).toBe('ev il  name');
  });
});
