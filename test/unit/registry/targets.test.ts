import { describe, expect, it } from 'vitest';
import type { RegistryEntry } from '../../../src/registry/entry.js';
import { parseRegistryEntry } from '../../../src/registry/entry.js';
import { resolveTarget } from '../../../src/registry/targets.js';

function entry(type: string, port: number, name: string | null = null): RegistryEntry {
  const now = new Date().toISOString();
  return {
    agent_id: `synapse-${type}-${port}`, agent_type: type, name, role: null, port, pid: 1, working_dir: '/w',
    endpoint: `http://127.0.0.1:${port}`, status: 'READY', status_updated_at: now, current_task_preview: null,
    task_received_at: null, registered_at: now, heartbeat_at: now, log_file: null, headless: true, synapse_version: 't',
  };
}

const aliases = { dummy: 'echo' };

describe('resolveTarget', () => {
  const agents = [entry('claude', 8100, 'reviewer'), entry('echo', 8190), entry('echo', 8191, 'bob'), entry('codex', 8120)];

  it('prefers a custom name', () => expect(resolveTarget(agents, 'reviewer', aliases).agent_id).toBe('synapse-claude-8100'));
  it('takes a full id', () => expect(resolveTarget(agents, 'synapse-echo-8191', aliases).name).toBe('bob'));
  it('takes type-port, also through an alias', () => {
    expect(resolveTarget(agents, 'echo-8190', aliases).agent_id).toBe('synapse-echo-8190');
    expect(resolveTarget(agents, 'dummy-8191', aliases).agent_id).toBe('synapse-echo-8191');
  });
  it('takes a bare type only when exactly one runs', () => {
    expect(resolveTarget(agents, 'codex', aliases).agent_id).toBe('synapse-codex-8120');
    expect(() => resolveTarget(agents, 'echo', aliases)).toThrowError(/2 echo agents are running[\s\S]*synapse-echo-8190[\s\S]*synapse-echo-8191/);
  });
  it('says which agents run when nothing matches', () => {
    try {
      resolveTarget(agents, 'gemini', aliases);
      expect.unreachable();
    } catch (err: any) {
      expect(err.code).toBe('target_not_found');
      expect(err.message).toContain('synapse-claude-8100 (reviewer)');
    }
  });
  it('reports ambiguity between two agents with the same name', () => {
    const dup = [entry('echo', 8190, 'x'), entry('claude', 8100, 'x')];
    expect(() => resolveTarget(dup, 'x', aliases)).toThrowError(/several agents are named "x"/);
  });
});

describe('parseRegistryEntry', () => {
  it('accepts a well-formed entry and rejects malformed ones', () => {
    expect(parseRegistryEntry(entry('echo', 8190))).not.toBeNull();
    expect(parseRegistryEntry({ ...entry('echo', 8190), port: '8190' })).toBeNull();
    expect(parseRegistryEntry({ ...entry('echo', 8190), agent_id: '../etc/passwd' })).toBeNull();
    expect(parseRegistryEntry({ ...entry('echo', 8190), status: 'HAPPY' })).toBeNull();
    expect(parseRegistryEntry(null)).toBeNull();
  });
});
