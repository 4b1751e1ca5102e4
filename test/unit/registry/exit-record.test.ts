import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { exitRecordDir } from '../../../src/config/paths.js';
import { describeExit, exitRecordOfPid, findExitRecord, readExitRecords, writeExitRecord, type ExitRecord } from '../../../src/registry/exit-record.js';

const homes: string[] = [];
afterEach(() => {
  for (const h of homes.splice(0)) fs.rmSync(h, { recursive: true, force: true });
});

function env(): { SYNAPSE_HOME: string } {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'synapse-exits-'));
  homes.push(home);
  return { SYNAPSE_HOME: home };
}

const record = (over: Partial<ExitRecord>): ExitRecord => ({
  agent_id: 'synapse-gemini-8110',
  name: null,
  agent_type: 'gemini',
  port: 8110,
  pid: 4242,
  working_dir: '/p',
  exited_at: '2026-01-01T10:00:00.000Z',
  exit_code: 42,
  signal: null,
  during_startup: true,
  last_lines: ['No input provided via stdin.'],
  log_file: null,
  ...over,
});

describe('exit records: why an agent went away', () => {
  it('are found by agent id, name, type-port and pid; the newest first', () => {
    const e = env();
    writeExitRecord(record({}), e);
    writeExitRecord(record({ agent_id: 'synapse-echo-8190', agent_type: 'echo', port: 8190, name: 'alice', pid: 7, exited_at: '2026-01-01T11:00:00.000Z' }), e);
    expect(readExitRecords(e).map((r) => r.agent_id)).toEqual(['synapse-echo-8190', 'synapse-gemini-8110']);
    expect(findExitRecord('alice', e)?.agent_id).toBe('synapse-echo-8190');
    expect(findExitRecord('gemini-8110', e)?.exit_code).toBe(42);
    expect(findExitRecord('synapse-gemini-8110', e)?.last_lines).toEqual(['No input provided via stdin.']);
    expect(findExitRecord('codex-8120', e)).toBeNull();
    expect(exitRecordOfPid(7, e)?.name).toBe('alice');
  });

  it('skip files that are not records, and drop records older than a day when one is written', () => {
    const e = env();
    const dir = exitRecordDir(e);
    writeExitRecord(record({ exited_at: '2026-01-01T00:00:00.000Z' }), e);
    fs.writeFileSync(path.join(dir, 'broken.json'), '{"agent_id": 3');
    fs.writeFileSync(path.join(dir, 'other.json'), '{"agent_id": "x"}');
    expect(readExitRecords(e).map((r) => r.agent_id)).toEqual(['synapse-gemini-8110']);
    writeExitRecord(record({ agent_id: 'synapse-echo-8190', exited_at: '2026-01-02T00:00:01.000Z' }), e);
    expect(readExitRecords(e).map((r) => r.agent_id)).toEqual(['synapse-echo-8190']);
  });

  it('describe the exit in a few words', () => {
    expect(describeExit(record({}))).toBe('exit code 42 during start-up');
    expect(describeExit(record({ exit_code: 0, during_startup: false }))).toBe('exit code 0');
    expect(describeExit(record({ exit_code: 1, signal: 9, during_startup: false }))).toBe('exit code 1, signal 9');
  });
});
