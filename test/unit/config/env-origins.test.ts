import { describe, expect, it } from 'vitest';
import { originListSetting } from '../../../src/config/env-origins.js';
import type { SynapseError } from '../../../src/errors.js';
import { synapseErrorOf } from '../../support/errors.js';

const NAME = 'SYNAPSE_CORS_ORIGINS';
const read = (value: string | undefined) => originListSetting(value === undefined ? {} : { [NAME]: value }, NAME);

const failure = (value: string): SynapseError => synapseErrorOf(() => read(value));

describe('originListSetting', () => {
  it('is empty when the variable is unset or blank', () => {
    expect(read(undefined)).toEqual([]);
    expect(read('  ')).toEqual([]);
  });

  it('reads origins as a browser sends them: lower case, default port dropped, no duplicates, blank entries skipped', () => {
    expect(read(' https://Dash.Example.com , http://127.0.0.1:3000,, https://dash.example.com:443/ ')).toEqual([
      'https://dash.example.com',
      'http://127.0.0.1:3000',
    ]);
    expect(read('http://[::1]:8080')).toEqual(['http://[::1]:8080']);
  });

  it('refuses what is not an http(s) origin, naming the variable and the entry', () => {
    for (const bad of [
      '*',
      'null',
      'dash.example.com',
      'https://dash.example.com/app',
      'https://dash.example.com?x',
      'https://u:p@dash.example.com',
      'file:///tmp/x',
      'ws://x',
    ]) {
      const err = failure(`https://ok.example.com,${bad}`);
      expect({ bad, code: err.code, message: err.message }).toEqual({
        bad,
        code: 'invalid_input',
        message: `${NAME} must be a comma-separated list of origins like https://host[:port] (no path, no wildcard), got "${bad}"`,
      });
    }
  });
});
