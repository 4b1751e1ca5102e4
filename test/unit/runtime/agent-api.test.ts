import { describe, expect, it } from 'vitest';
import { agentApi, type AgentParts } from '../../../src/runtime/agent-api-impl.js';
import { synapseErrorOf } from '../../support/errors.js';

describe('the agent port while it shuts down', () => {
  it('refuses a new message with agent_not_ready (503) and queues nothing', () => {
    const created: unknown[] = [];
    // Only what submit touches: an agent on its way out must not queue anything.
    const parts = { isShuttingDown: () => true, tasks: { create: (t: unknown) => created.push(t) } } as unknown as AgentParts;
    const api = agentApi(parts);
    expect(api.acceptingMessages()).toBe(false);
    const err = synapseErrorOf(() => api.submit({ message: { role: 'user', parts: [{ type: 'text', text: 'late' }] } }));
    expect(err.code).toBe('agent_not_ready');
    expect(err.message).toMatch(/shutting down/);
    expect(created).toEqual([]);
  });
});
