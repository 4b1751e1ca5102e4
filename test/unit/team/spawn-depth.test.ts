import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { leaseTerms } from '../../../src/team/lease.js';
import { nextSpawnDepth } from '../../../src/team/spawn-depth.js';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'synapse-depth-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
const env = (extra: Record<string, string> = {}) => ({ HOME: dir, SYNAPSE_REGISTRY_DIR: path.join(dir, 'registry'), ...extra });

describe('the spawn depth', () => {
  it('a person spawns at depth 0; an agent one deeper than itself; beyond the default maximum of 2, refused', () => {
    expect(nextSpawnDepth(env())).toBe(0);
    expect(nextSpawnDepth(env({ SYNAPSE_AGENT_ID: 'synapse-claude-8100' }))).toBe(1);
    expect(nextSpawnDepth(env({ SYNAPSE_AGENT_ID: 'synapse-claude-8100', SYNAPSE_SPAWN_DEPTH: '1' }))).toBe(2);
    expect(() => nextSpawnDepth(env({ SYNAPSE_AGENT_ID: 'synapse-echo-8301', SYNAPSE_SPAWN_DEPTH: '2' }))).toThrow(
      'not spawning: synapse-echo-8301 is at spawn depth 2 and SYNAPSE_MAX_SPAWN_DEPTH is 2',
    );
    expect(nextSpawnDepth(env({ SYNAPSE_SPAWN_DEPTH: '2', SYNAPSE_MAX_SPAWN_DEPTH: '5' }))).toBe(3);
    expect(() => nextSpawnDepth(env({ SYNAPSE_AGENT_ID: 'synapse-claude-8100', SYNAPSE_MAX_SPAWN_DEPTH: '0' }))).toThrow('SYNAPSE_MAX_SPAWN_DEPTH is 0');
  });
});

describe('lease terms', () => {
  it('the flags over the settings; durations in words or seconds; 0 turns either off', () => {
    const none = { keepIdle: null, keepTurns: null };
    expect(leaseTerms({}, none)).toEqual({});
    expect(leaseTerms({ keepIdle: '10m', keepTurns: '3' }, none)).toEqual({ idleMs: 600_000, turns: 3 });
    expect(leaseTerms({}, { keepIdle: '90', keepTurns: 2 })).toEqual({ idleMs: 90_000, turns: 2 });
    expect(leaseTerms({ keepIdle: '0', keepTurns: '0' }, { keepIdle: '1h', keepTurns: 2 })).toEqual({});
    expect(leaseTerms({ keepIdle: 30 }, none)).toEqual({ idleMs: 30_000 });
    expect(() => leaseTerms({ keepTurns: 'two' }, none)).toThrow('--keep-turns is a whole number of answered tasks');
    expect(() => leaseTerms({ keepIdle: 'soon' }, none)).toThrow("invalid --keep-idle 'soon'");
  });
});
