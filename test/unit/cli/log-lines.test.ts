import { afterEach, describe, expect, it } from 'vitest';
import { routeConsoleToLog } from '../../../src/cli/console-to-log.js';
import { formatLogChunk, formatLogLine } from '../../../src/cli/log-lines.js';

describe('synapse logs prints the JSON event log as lines', () => {
  const line = (rec: Record<string, unknown>) => JSON.stringify(rec);

  it('shows an info event as `time agent_id message`', () => {
    expect(formatLogLine(line({ level: 'info', time: '2026-12-04T10:00:00.000Z', agent_id: 'synapse-echo-8190', msg: 'status READY -> PROCESSING' }))).toBe(
      '2026-12-04T10:00:00.000Z synapse-echo-8190 status READY -> PROCESSING',
    );
  });

  it('marks warnings and errors', () => {
    expect(formatLogLine(line({ level: 'error', time: 't', agent_id: 'a', msg: 'cannot write registry entry' }))).toBe('t a ERROR cannot write registry entry');
    expect(formatLogLine(line({ level: 'warn', time: 't', msg: 'no agent id' }))).toBe('t WARN no agent id');
  });

  it('passes other lines as written: a stack trace, broken JSON, JSON that is no event', () => {
    for (const raw of ['    at main (file.js:1:1)', '{ not json', '{"a":1}', '', 'synapse-echo-8190 ready for HTTP on http://127.0.0.1:8190']) {
      expect(formatLogLine(raw)).toBe(raw);
    }
  });

  it('formats a growing file chunk line by line and keeps a partial last line as it is', () => {
    const chunk = `${line({ level: 'info', time: 't', agent_id: 'a', msg: 'one' })}\nplain\n{"level":"info","ti`;
    expect(formatLogChunk(chunk)).toBe('t a one\nplain\n{"level":"info","ti');
  });
});

describe('in the foreground, console output goes to the agent log', () => {
  const saved = { log: console.log, info: console.info, debug: console.debug, warn: console.warn, error: console.error };
  afterEach(() => Object.assign(console, saved));

  it('routes each console method to the logger level of the same name, formatted like console', () => {
    const got: string[] = [];
    const logger = {
      info: (m: string) => got.push(`info ${m}`),
      debug: (m: string) => got.push(`debug ${m}`),
      warn: (m: string) => got.push(`warn ${m}`),
      error: (m: string) => got.push(`error ${m}`),
    };
    routeConsoleToLog(logger);
    console.log('a %d', 1);
    console.info('b');
    console.debug('c');
    console.warn('push failed for', { task: 'x' });
    console.error(new Error('boom').message);
    Object.assign(console, saved);
    expect(got).toEqual(['info a 1', 'info b', 'debug c', "warn push failed for { task: 'x' }", 'error boom']);
  });
});
