import { describe, expect, it } from 'vitest';
import { synapseErrorOf } from '../../support/errors.js';
import { checkRegistryEntry, entryFile } from '../../../src/registry/entry.js';
import { originalEntry } from '../../support/original-synapse.mjs';
import { canonicalType, findTarget, resolveAgentIdOrName, resolveTarget } from '../../../src/registry/targets.js';
import { entry } from './fixtures.js';

const thrown = synapseErrorOf;

describe('resolveTarget', () => {
  const agents = [entry('claude', 8100, 'reviewer'), entry('echo', 8190), entry('echo', 8191, 'bob'), entry('codex', 8120)];

  it('prefers a custom name', () => expect(resolveTarget(agents, 'reviewer').agent_id).toBe('synapse-claude-8100'));
  it('takes a full id', () => expect(resolveTarget(agents, 'synapse-echo-8191').name).toBe('bob'));
  it('takes type-port, also through an alias', () => {
    expect(resolveTarget(agents, 'echo-8190').agent_id).toBe('synapse-echo-8190');
    expect(resolveTarget(agents, 'dummy-8191').agent_id).toBe('synapse-echo-8191');
  });
  it('takes a bare type only when exactly one runs', () => {
    expect(resolveTarget(agents, 'codex').agent_id).toBe('synapse-codex-8120');
    expect(() => resolveTarget(agents, 'echo')).toThrowError(/2 echo agents are running[\s\S]*synapse-echo-8190[\s\S]*synapse-echo-8191/);
  });
  it('says which agents run when nothing matches', () => {
    const err = thrown(() => resolveTarget(agents, 'gemini'));
    expect(err.code).toBe('target_not_found');
    expect(err.message).toContain('synapse-claude-8100 (reviewer)');
    expect(err.details?.candidates).toEqual(agents.map((a) => a.agent_id));
  });
  it('names the registry files it skipped when nothing matches', () => {
    const err = thrown(() => resolveTarget(agents, 'gemini', [{ file: '/r/synapse-gemini-8110.json', reason: 'not JSON: Unexpected end' }]));
    expect(err.code).toBe('target_not_found');
    expect(err.message).toContain('Registry files skipped (not entries):\n  /r/synapse-gemini-8110.json: not JSON: Unexpected end');
  });
  it('reports ambiguity between two agents with the same name, listing both', () => {
    const dup = [entry('echo', 8190, 'x'), entry('claude', 8100, 'x')];
    const err = thrown(() => resolveTarget(dup, 'x'));
    expect(err.code).toBe('ambiguous_target');
    expect(err.message).toMatch(/several agents are named "x"[\s\S]*synapse-echo-8190 \(x\)[\s\S]*synapse-claude-8100 \(x\)/);
    expect(err.details?.candidates).toEqual(['synapse-echo-8190', 'synapse-claude-8100']);
  });
  it('reports ambiguity of a bare type with the candidates in the error details', () => {
    const err = thrown(() => resolveTarget(agents, 'dummy'));
    expect(err.code).toBe('ambiguous_target');
    expect(err.details?.candidates).toEqual(['synapse-echo-8190', 'synapse-echo-8191']);
  });
});

describe("resolveTarget over the original Synapse's entries too", () => {
  const original = (type: string, port: number, name?: string) =>
    checkRegistryEntry(originalEntry({ agentType: type, port, pid: 10, workingDir: '/w', ...(name ? { name } : {}) })).entry!;
  const agents = [
    original('claude', 8100, 'py-reviewer'),
    original('dummy', 8191),
    original('gemini', 8110),
    entry('echo', 8190),
    entry('codex', 8120, 'ts-coder'),
  ];

  it('by name, id, type-port and type, as for ours', () => {
    expect(resolveTarget(agents, 'py-reviewer').agent_id).toBe('synapse-claude-8100');
    expect(resolveTarget(agents, 'synapse-gemini-8110').endpoint).toBe('http://localhost:8110');
    expect(resolveTarget(agents, 'dummy-8191').agent_id).toBe('synapse-dummy-8191');
    expect(resolveTarget(agents, 'gemini').agent_id).toBe('synapse-gemini-8110');
    expect(resolveTarget(agents, 'claude-code').agent_id).toBe('synapse-claude-8100');
  });

  it("takes the original's `dummy` for the type it is, beside our echo (its alias): naming both is ambiguous", () => {
    const err = thrown(() => resolveTarget(agents, 'dummy'));
    expect(err.code).toBe('ambiguous_target');
    expect(err.message).toMatch(/^2 dummy agents are running/);
    expect(err.details?.candidates).toEqual(['synapse-dummy-8191', 'synapse-echo-8190']);
    expect(resolveTarget(agents, 'echo').agent_id).toBe('synapse-echo-8190');
  });
});

describe('aliases come from the profiles', () => {
  const agents = [entry('copilot', 8140), entry('opencode', 8130), entry('claude', 8100), entry('codex', 8120), entry('gemini', 8110)];

  it.each([
    ['copilot-cli', 'synapse-copilot-8140'],
    ['github-copilot', 'synapse-copilot-8140'],
    ['opencode-ai', 'synapse-opencode-8130'],
    ['claude-code', 'synapse-claude-8100'],
    ['codex-cli', 'synapse-codex-8120'],
    ['gemini-cli', 'synapse-gemini-8110'],
    ['Copilot-CLI', 'synapse-copilot-8140'],
  ])('%s resolves as a bare type', (alias, id) => expect(resolveTarget(agents, alias).agent_id).toBe(id));

  it('resolves an alias in type-port too', () => {
    expect(resolveTarget(agents, 'copilot-cli-8140').agent_id).toBe('synapse-copilot-8140');
    expect(resolveTarget(agents, 'opencode-ai-8130').agent_id).toBe('synapse-opencode-8130');
  });

  it('maps an alias to its profile id and leaves an unknown type as it is', () => {
    expect(canonicalType('github-copilot')).toBe('copilot');
    expect(canonicalType('dummy')).toBe('echo');
    expect(canonicalType('Aider')).toBe('aider');
  });
});

describe('findTarget and resolveAgentIdOrName', () => {
  const agents = [entry('claude', 8100, 'alice'), entry('echo', 8190, 'twin'), entry('echo', 8191, 'twin')];

  it('finds nothing without throwing, and throws on ambiguity', () => {
    expect(findTarget(agents, 'nobody')).toBeNull();
    expect(thrown(() => findTarget(agents, 'twin')).code).toBe('ambiguous_target');
  });

  it('gives the id of the agent a name resolves to, and falls back to the name given otherwise', () => {
    expect(resolveAgentIdOrName(agents, ' alice ')).toBe('synapse-claude-8100');
    expect(resolveAgentIdOrName(agents, 'claude')).toBe('synapse-claude-8100');
    expect(resolveAgentIdOrName(agents, 'carol')).toBe('carol');
    expect(() => resolveAgentIdOrName(agents, 'twin')).toThrowError(/several agents are named "twin"/);
  });
});

const accepted = (raw: unknown) => checkRegistryEntry(raw).entry ?? null;

describe('checkRegistryEntry', () => {
  it('accepts a well-formed entry and rejects malformed ones', () => {
    expect(accepted(entry('echo', 8190))).not.toBeNull();
    expect(accepted({ ...entry('echo', 8190), port: '8190' })).toBeNull();
    expect(accepted({ ...entry('echo', 8190), agent_id: '../etc/passwd' })).toBeNull();
    expect(accepted({ ...entry('echo', 8190), status: 'happy' })).toBeNull();
    expect(accepted({ ...entry('echo', 8190), registered_at: 'yesterday' })).toBeNull();
    expect(accepted({ ...entry('echo', 8190), pid_starttime: 'early' })).toBeNull();
    expect(accepted(null)).toBeNull();
  });

  it('says why a value is not an entry', () => {
    expect(checkRegistryEntry([]).problem).toBe('not a JSON object');
    const { pid: _, ...noPid } = entry('echo', 8190);
    expect(checkRegistryEntry(noPid).problem).toBe('not a Synapse registry entry: pid is missing');
    expect(checkRegistryEntry({ ...entry('echo', 8190), port: '8190' }).problem).toBe('not a Synapse registry entry: port is not an integer');
    expect(checkRegistryEntry({ ...entry('echo', 8190), name: 7 }).problem).toBe('not a Synapse registry entry: name is not a string or null');
    expect(checkRegistryEntry({ agent_id: 'x' }).problem).toMatch(
      /^not a Synapse registry entry: agent_id is not synapse-<type>-<port>, agent_type is missing, port is missing \(\+\d+ more\)$/,
    );
  });

  it('fills the optional fields an older writer leaves out', () => {
    const { log_file: _l, headless: _h, synapse_version: _v, pid_starttime: _s, ...old } = entry('echo', 8190);
    expect(accepted(old)).toMatchObject({ log_file: null, headless: false, synapse_version: 'unknown', pid_starttime: null });
  });

  it("reads the original Synapse's entry: epoch seconds, no name or heartbeat, its own statuses and fields", () => {
    const raw = originalEntry({
      agentType: 'claude',
      port: 8100,
      pid: 4242,
      workingDir: '/w',
      skillSet: 'dev',
      status: 'WAITING_FOR_INPUT',
      now: 1767225600.123456,
    });
    const e = accepted({ ...raw, current_task_preview: 'review the p...', task_received_at: 1767225601.5, input_required_tasks: [] });
    expect(e).toMatchObject({
      agent_id: 'synapse-claude-8100',
      agent_type: 'claude',
      name: null,
      role: null,
      port: 8100,
      pid: 4242,
      pid_starttime: null,
      working_dir: '/w',
      endpoint: 'http://localhost:8100',
      status: 'WAITING_FOR_INPUT',
      status_updated_at: '2026-01-01T00:00:00.123Z',
      registered_at: '2026-01-01T00:00:00.123Z',
      current_task_preview: 'review the p...',
      task_received_at: '2026-01-01T00:00:01.500Z',
      heartbeat_at: null,
      synapse_version: 'unknown',
      // Fields only the original knows are kept as they are.
      uds_path: '/tmp/synapse-a2a/synapse-claude-8100.sock',
      skill_set: 'dev',
      last_status_change_at: 1767225600.123456,
      renderer_available: true,
      input_required_tasks: [],
    });
  });

  it('writes timestamps in epoch seconds, as the original reads them, and reads them back unchanged', () => {
    const e = entry('echo', 8190, 'alice', { pid_starttime: 123, task_received_at: '2026-01-01T00:00:01.500Z', registered_at: '2026-01-01T00:00:00.001Z' });
    const file = entryFile(e);
    expect(file).toMatchObject({ registered_at: 1767225600.001, task_received_at: 1767225601.5, pid_starttime: 123, name: 'alice' });
    expect(typeof file.status_updated_at).toBe('number');
    expect(typeof file.heartbeat_at).toBe('number');
    expect(accepted(JSON.parse(JSON.stringify(file)))).toEqual(e);
  });
});
