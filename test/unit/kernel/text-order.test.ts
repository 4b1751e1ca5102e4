import { describe, expect, it } from 'vitest';
import { compareCodeUnits, naturalCompare } from '../../../src/text-order.js';

describe('naturalCompare', () => {
  it("orders agent ids, ours and the original's, as localeCompare(b, 'en', { numeric: true }) did", () => {
    const ids = [
      'synapse-claude-8100',
      'synapse-claude-8101',
      'synapse-claude-8109',
      'synapse-claude-810',
      'synapse-codex-8120',
      'synapse-codex-8121',
      'synapse-gemini-8110',
      'synapse-opencode-8130',
      'synapse-copilot-8140',
      'synapse-echo-8190',
      'synapse-echo-9',
      'synapse-echo-10',
      'synapse-echo-43255',
      'synapse-dummy-8199',
      'synapse-claude-8100-b',
      'synapse-Claude-8102',
    ];
    const shuffled = [...ids].reverse();
    const viaIcu = [...shuffled].sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
    expect([...shuffled].sort(naturalCompare)).toEqual(viaIcu);
  });

  it('orders runs of digits by value however long, other text without regard to case, and ties by code unit', () => {
    expect(naturalCompare('agent-9', 'agent-10')).toBeLessThan(0);
    expect(naturalCompare('a99999999999999999999', 'a100000000000000000000')).toBeLessThan(0);
    expect(naturalCompare('a007', 'a7')).not.toBe(0); // same value: the code units decide, so the order stays total
    expect(naturalCompare('alpha', 'Beta')).toBeLessThan(0);
    expect(naturalCompare('Beta', 'alpha')).toBeGreaterThan(0);
    expect(naturalCompare('Alpha', 'alpha')).toBe(compareCodeUnits('Alpha', 'alpha'));
    expect(naturalCompare('x', 'x')).toBe(0);
    expect(naturalCompare('', 'a')).toBeLessThan(0);
    expect(naturalCompare('agent', 'agent-1')).toBeLessThan(0);
  });

  it('is a total order: antisymmetric, and transitive over random ids', () => {
    const alphabet = 'aB-_1903z.';
    let seed = 7;
    const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const words = Array.from({ length: 300 }, () =>
      Array.from({ length: 1 + Math.floor(next() * 8) }, () => alphabet[Math.floor(next() * alphabet.length)]).join(''),
    );
    const sorted = [...words].sort(naturalCompare);
    for (let i = 0; i + 1 < sorted.length; i++) expect(naturalCompare(sorted[i]!, sorted[i + 1]!)).toBeLessThanOrEqual(0);
    for (const a of words.slice(0, 60))
      for (const b of words.slice(0, 60)) {
        expect(Math.sign(naturalCompare(a, b)) + Math.sign(naturalCompare(b, a))).toBe(0);
        if (a !== b) expect(naturalCompare(a, b)).not.toBe(0);
      }
  });
});
