import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from '../../../src/store/duration.js';

describe('durations', () => {
  it('reads units, compounds and bare numbers in the given unit', () => {
    expect(parseDuration('600')).toBe(600_000);
    expect(parseDuration('90s')).toBe(90_000);
    expect(parseDuration('10m')).toBe(600_000);
    expect(parseDuration('1h30m')).toBe(5_400_000);
    expect(parseDuration('7d')).toBe(604_800_000);
    expect(parseDuration('1w')).toBe(604_800_000);
    expect(parseDuration('7', 'd')).toBe(604_800_000);
    expect(parseDuration('1.5s')).toBe(1500);
  });

  it('refuses anything else with a usage error', () => {
    for (const bad of ['', 'abc', '7x', '-5', '0', '5 d', 'd7', '1h30']) {
      expect(() => parseDuration(bad, 's', '--ttl')).toThrow(expect.objectContaining({ code: 'usage' }));
    }
  });

  it('formats for messages', () => {
    expect(formatDuration(90_000)).toBe('1m30s');
    expect(formatDuration(86_400_000 + 3_600_000)).toBe('1d1h');
    expect(formatDuration(500)).toBe('500ms');
  });
});
