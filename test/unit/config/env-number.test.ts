import { describe, expect, it } from 'vitest';
import { synapseErrorOf } from '../../support/errors.js';
import { numberSetting } from '../../../src/config/env-number.js';

const bytes = { default: 100, integer: true, min: 0, unit: 'bytes' } as const;

const failure = synapseErrorOf;

describe('numberSetting', () => {
  it('gives the default when the variable is unset or blank', () => {
    expect(numberSetting({}, 'SYNAPSE_X', bytes)).toBe(100);
    expect(numberSetting({ SYNAPSE_X: '  ' }, 'SYNAPSE_X', bytes)).toBe(100);
    expect(numberSetting({}, 'SYNAPSE_X', { unit: 'bytes' })).toBeUndefined();
  });

  it('reads a number, spaces around it allowed', () => {
    expect(numberSetting({ SYNAPSE_X: ' 2048 ' }, 'SYNAPSE_X', bytes)).toBe(2048);
    expect(numberSetting({ SYNAPSE_X: '0.5' }, 'SYNAPSE_X', { default: 5, min: 0, unit: 'seconds' })).toBe(0.5);
  });

  it('refuses what does not parse, naming the variable and the value (no NaN, no fallback)', () => {
    const err = failure(() => numberSetting({ SYNAPSE_X: '100kb' }, 'SYNAPSE_X', bytes));
    expect(err.code).toBe('invalid_input');
    expect(err.message).toBe('SYNAPSE_X must be a whole number of bytes (at least 0), got "100kb"');
    expect(failure(() => numberSetting({ SYNAPSE_X: 'Infinity' }, 'SYNAPSE_X', bytes)).code).toBe('invalid_input');
  });

  it('refuses a fraction where a whole number is needed, and a value outside the range', () => {
    expect(failure(() => numberSetting({ SYNAPSE_X: '1.5' }, 'SYNAPSE_X', bytes)).message).toBe(
      'SYNAPSE_X must be a whole number of bytes (at least 0), got "1.5"',
    );
    expect(failure(() => numberSetting({ SYNAPSE_X: '-1' }, 'SYNAPSE_X', bytes)).message).toContain('got "-1"');
    expect(failure(() => numberSetting({ SYNAPSE_PORT: '70000' }, 'SYNAPSE_PORT', { integer: true, min: 1, max: 65535 })).message).toBe(
      'SYNAPSE_PORT must be a whole number from 1 to 65535, got "70000"',
    );
  });
});
