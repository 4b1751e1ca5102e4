import { describe, expect, it } from 'vitest';
import { agentSettings } from '../../../src/runtime/agent-settings.js';
import { SCROLLBACK_LINES } from '../../../src/runtime/screen.js';

describe('agentSettings: the scrollback an agent keeps', () => {
  it('defaults to SCROLLBACK_LINES rows and takes SYNAPSE_SCROLLBACK_LINES', () => {
    expect(agentSettings({ HOME: '/nonexistent' }).scrollbackLines).toBe(SCROLLBACK_LINES);
    expect(agentSettings({ HOME: '/nonexistent', SYNAPSE_SCROLLBACK_LINES: '500' }).scrollbackLines).toBe(500);
  });

  it('refuses a value that is not a whole number of rows, naming the variable', () => {
    for (const bad of ['lots', '2.5', '10']) {
      expect(() => agentSettings({ HOME: '/nonexistent', SYNAPSE_SCROLLBACK_LINES: bad })).toThrow(/SYNAPSE_SCROLLBACK_LINES/);
    }
  });
});
