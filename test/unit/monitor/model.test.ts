import { describe, expect, it } from 'vitest';
import { applyFilter, matchesFilter } from '../../../src/monitor/filter.js';
import { initialState, rowWindow, selectedAgent, selectedIndex, visibleAgents, withAgents, type MonitorState } from '../../../src/monitor/model.js';
import { row } from './rows.js';

const bob = row({ port: 8191, name: 'bob', agent_type: 'echo', working_dir: '/work/api' });
const ann = row({ port: 8100, name: 'ann', agent_type: 'claude', working_dir: '/work/web', agent_id: 'synapse-claude-8100' });
const zed = row({ port: 8190, name: null, agent_type: 'echo', working_dir: '/work/Web-Tests' });

describe('the monitor filter', () => {
  it('matches type, name or working directory, ignoring case; empty matches all', () => {
    expect(matchesFilter(ann, 'CLAUDE')).toBe(true);
    expect(matchesFilter(bob, 'bo')).toBe(true);
    expect(applyFilter([bob, ann, zed], 'web').map((r) => r.entry.name)).toEqual(['ann', null]);
    expect(matchesFilter(bob, 'synapse-echo')).toBe(false); // not the id
    expect(applyFilter([bob, ann, zed], '  ')).toHaveLength(3);
  });
});

describe('the monitor state', () => {
  it('a read sorts the agents by id, numbers included, so rows keep their places across reads', () => {
    const s = withAgents(initialState(), [bob, zed, ann]);
    expect(s.loaded).toBe(true);
    expect(s.agents.map((r) => r.entry.agent_id)).toEqual(['synapse-claude-8100', 'synapse-echo-8190', 'synapse-echo-8191']);
  });

  it('the selection follows the agent, not the row number, and goes when the agent does', () => {
    let s = withAgents(initialState(), [bob, zed]);
    s = { ...s, selectedId: bob.entry.agent_id };
    expect(selectedIndex(s)).toBe(1);
    s = withAgents(s, [ann, bob, zed]);
    expect(selectedIndex(s)).toBe(2);
    expect(selectedAgent(s)?.entry.name).toBe('bob');
    s = withAgents(s, [ann, zed]);
    expect(s.selectedId).toBeNull();
  });

  it('a pending kill is dropped when its agent leaves', () => {
    let s: MonitorState = { ...withAgents(initialState(), [bob, zed]), confirmKillId: bob.entry.agent_id };
    s = withAgents(s, [zed]);
    expect(s.confirmKillId).toBeNull();
  });

  it('visible rows are the filtered ones', () => {
    const s = { ...withAgents(initialState(), [bob, ann, zed]), filter: 'echo' };
    expect(visibleAgents(s).map((r) => r.entry.agent_id)).toEqual(['synapse-echo-8190', 'synapse-echo-8191']);
  });

  it('the row window holds the selected row and scrolls no further than needed', () => {
    expect(rowWindow(5, null, 10)).toEqual({ start: 0, end: 5 });
    expect(rowWindow(20, null, 5)).toEqual({ start: 0, end: 5 });
    expect(rowWindow(20, 4, 5)).toEqual({ start: 0, end: 5 });
    expect(rowWindow(20, 5, 5)).toEqual({ start: 1, end: 6 });
    expect(rowWindow(20, 19, 5)).toEqual({ start: 15, end: 20 });
    expect(rowWindow(3, 0, 0)).toEqual({ start: 0, end: 1 });
  });
});
