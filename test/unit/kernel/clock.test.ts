import { describe, expect, it } from 'vitest';
import { httpDate, iso } from '../../../src/clock.js';

/** What iso() must write: Date#toISOString, which it replaces without building a Date. */
const byDate = (ms: number) => new Date(ms).toISOString();
const at = (text: string) => Date.parse(text);

describe('iso', () => {
  it('writes what Date#toISOString writes, at the edges of days, months, leap years, centuries and the range', () => {
    const edges = [
      '1970-01-01T00:00:00.000Z',
      '1969-12-31T23:59:59.999Z',
      '2000-02-29T12:00:00.000Z',
      '2000-03-01T00:00:00.000Z',
      '1900-02-28T23:59:59.999Z',
      '1900-03-01T00:00:00.000Z',
      '2100-03-01T00:00:00.000Z',
      '2024-12-31T23:59:59.999Z',
      '2025-01-01T00:00:00.000Z',
      '1600-02-29T00:00:00.001Z',
      '0000-01-01T00:00:00.000Z',
      '0000-03-01T00:00:00.000Z',
      '9999-12-31T23:59:59.999Z',
    ];
    for (const text of edges) {
      expect(iso(at(text))).toBe(text);
      for (const d of [-1, 1, 999, -1000, 86_399_999]) expect(iso(at(text) + d)).toBe(byDate(at(text) + d));
    }
  });

  it('agrees with Date#toISOString on 20,000 times spread over years 0 to 9999 and around now', () => {
    const first = at('0000-01-01T00:00:00.000Z');
    const last = at('9999-12-31T23:59:59.999Z');
    let seed = 12345;
    const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 10_000; i++) {
      const wide = Math.floor(first + next() * (last - first));
      const near = Date.now() + Math.floor((next() - 0.5) * 4e11);
      expect(iso(wide)).toBe(byDate(wide));
      expect(iso(near)).toBe(byDate(near));
    }
  });

  it('cuts a fraction toward zero as a Date does, writes -0 as the epoch, and leaves other years and bad values to Date', () => {
    for (const ms of [1.7, -1.7, 1_700_000_000_000.9, -0.5, -0]) expect(iso(ms)).toBe(byDate(ms));
    expect(iso(at('0000-01-01T00:00:00.000Z') - 1)).toBe('-000001-12-31T23:59:59.999Z');
    expect(iso(at('9999-12-31T23:59:59.999Z') + 1)).toBe('+010000-01-01T00:00:00.000Z');
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) expect(() => iso(bad)).toThrow(RangeError);
  });
});

describe('httpDate', () => {
  it('writes what Date#toUTCString writes (IMF-fixdate), every weekday and month, the edges of the range, and leaves the rest to Date', () => {
    let seed = 99;
    const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const first = at('0000-01-01T00:00:00.000Z');
    const last = at('9999-12-31T23:59:59.999Z');
    for (let i = 0; i < 5000; i++) {
      const ms = Math.floor(first + next() * (last - first));
      expect(httpDate(ms)).toBe(new Date(ms).toUTCString());
    }
    for (let day = 0; day < 400; day++)
      expect(httpDate(at('2026-01-01T00:00:00.000Z') + day * 86_400_000 + 1)).toBe(
        new Date(at('2026-01-01T00:00:00.000Z') + day * 86_400_000 + 1).toUTCString(),
      );
    expect(httpDate(at('1994-11-06T08:49:37.000Z'))).toBe('Sun, 06 Nov 1994 08:49:37 GMT'); // RFC 9110's example
    for (const ms of [first, last, first - 1, last + 1, -1, 0]) expect(httpDate(ms)).toBe(new Date(ms).toUTCString());
    expect(httpDate(Number.NaN)).toBe('Invalid Date');
  });
});
