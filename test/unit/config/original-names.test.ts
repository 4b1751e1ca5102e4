import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { logLevel } from '../../../src/runtime/agent-log.js';
import { historyDbPath } from '../../../src/store/history-schema.js';
import { memoryDbPath } from '../../../src/store/settings.js';

/** The original's variable names that moved a store or set the log level (issue 20 §1). */
describe("the original's variables", () => {
  it('SYNAPSE_HISTORY_DB_PATH moves the history database', () => {
    expect(historyDbPath({ SYNAPSE_HOME: '/h' })).toBe(path.join('/h', 'history', 'history.db'));
    expect(historyDbPath({ SYNAPSE_HOME: '/h', SYNAPSE_HISTORY_DB_PATH: '/x/h.db' })).toBe('/x/h.db');
  });

  it('SYNAPSE_SHARED_MEMORY_DB_PATH moves the memory database, relative to the project', () => {
    expect(memoryDbPath('/tmp', { SYNAPSE_SHARED_MEMORY_DB_PATH: 'notes/m.db' })).toBe(path.resolve('/tmp', 'notes/m.db'));
    expect(memoryDbPath('/tmp')).toMatch(/\.synapse\/memory\.db$/);
  });

  it('SYNAPSE_LOG_LEVEL sets the log level; anything else is info', () => {
    expect(logLevel({ SYNAPSE_LOG_LEVEL: 'DEBUG' })).toBe('debug');
    expect(logLevel({ SYNAPSE_LOG_LEVEL: 'loud' })).toBe('info');
    expect(logLevel({})).toBe('info');
  });
});
