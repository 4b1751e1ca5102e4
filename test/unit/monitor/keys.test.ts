import { describe, expect, it } from 'vitest';
import { handleInput, handleKey, type KeyPress } from '../../../src/monitor/keys.js';
import { initialState, selectedAgent, withAgents, type MonitorState } from '../../../src/monitor/model.js';
import { row } from './rows.js';

const agents = [8190, 8191, 8192].map((port, i) => row({ port, name: ['ann', 'bob', 'cat'][i]!, working_dir: `/work/${['api', 'web', 'api'][i]}` }));
const start = () => withAgents(initialState(), agents);

/** Presses the keys in order; returns the last state and every effect asked for. */
function press(state: MonitorState, ...keys: Array<string | KeyPress>) {
  const effects: string[] = [];
  for (const k of keys) {
    const r = handleKey(state, typeof k === 'string' ? { input: k } : k);
    state = r.state;
    if (r.effect) effects.push(r.effect.kind === 'quit' ? 'quit' : `${r.effect.kind} ${r.effect.agent.entry.name}`);
  }
  return { state, effects };
}
const name = (s: MonitorState) => selectedAgent(s)?.entry.name ?? null;

describe('the monitor keys', () => {
  it('1-9 select that row; a digit past the last row says so', () => {
    expect(name(press(start(), '2').state)).toBe('bob');
    const none = press(start(), '7').state;
    expect(name(none)).toBeNull();
    expect(none.message).toBe('there is no row 7');
    expect(name(press(start(), '0').state)).toBeNull();
  });

  it('↓ from nothing selects the first row, ↑ the last; they stop at the ends', () => {
    expect(name(press(start(), { input: '', down: true }).state)).toBe('ann');
    expect(name(press(start(), { input: '', up: true }).state)).toBe('cat');
    expect(name(press(start(), '3', { input: '', down: true }).state)).toBe('cat');
    expect(name(press(start(), '1', { input: '', up: true }, { input: '', down: true }).state)).toBe('bob');
  });

  it('Enter or j jumps to the selected agent; without a selection they say how to select', () => {
    expect(press(start(), '2', { input: '', enter: true }).effects).toEqual(['jump bob']);
    expect(press(start(), '3', 'j').effects).toEqual(['jump cat']);
    const none = press(start(), 'j');
    expect(none.effects).toEqual([]);
    expect(none.state.message).toMatch(/select an agent first/);
  });

  it('K asks before killing: y kills, n or ESC cancels, other keys wait for an answer', () => {
    const asked = press(start(), '2', 'K');
    expect(asked.state.confirmKillId).toBe('synapse-echo-8191');
    expect(asked.effects).toEqual([]);
    const waiting = press(asked.state, 'q', '1', { input: '', enter: true });
    expect(waiting.effects).toEqual([]);
    expect(waiting.state.confirmKillId).toBe('synapse-echo-8191');
    expect(press(asked.state, 'y').effects).toEqual(['kill bob']);
    expect(press(asked.state, 'y').state.confirmKillId).toBeNull();
    expect(press(asked.state, 'n').effects).toEqual([]);
    expect(press(asked.state, { input: '', escape: true }).state.confirmKillId).toBeNull();
    expect(press(start(), 'K').state.confirmKillId).toBeNull();
  });

  it('/ types a filter of type, name or directory; Enter keeps it, ESC clears it; q and j are text while typing', () => {
    const typing = press(start(), '/', 'w', 'e', 'b');
    expect(typing.state.typingFilter).toBe(true);
    expect(typing.state.filter).toBe('web');
    expect(press(start(), '/', 'q', 'j').effects).toEqual([]);
    const kept = press(typing.state, { input: '', enter: true });
    expect(kept.state).toMatchObject({ filter: 'web', typingFilter: false });
    expect(press(kept.state, '1').state.selectedId).toBe('synapse-echo-8191');
    expect(press(typing.state, { input: '', backspace: true }).state.filter).toBe('we');
    expect(press(typing.state, { input: '', escape: true }).state).toMatchObject({ filter: '', typingFilter: false });
  });

  it('ESC clears an applied filter first, then the selection; a selection the filter hides is dropped', () => {
    const filtered = press(start(), '3', '/', 'a', 'p', 'i', { input: '', enter: true });
    expect(filtered.state.selectedId).toBe('synapse-echo-8192');
    const cleared = press(filtered.state, { input: '', escape: true });
    expect(cleared.state.filter).toBe('');
    expect(name(cleared.state)).toBe('cat');
    expect(name(press(cleared.state, { input: '', escape: true }).state)).toBeNull();
    expect(press(start(), '2', '/', 'a', 'p', 'i').state.selectedId).toBeNull();
  });

  it('a pasted filter keeps only printable text', () => {
    expect(press(start(), '/', { input: 'we\x1b[31mb\n' }).state.filter).toBe('we[31mb');
  });

  it('q and Ctrl+C quit; Ctrl+C even while asking or typing', () => {
    expect(press(start(), 'q').effects).toEqual(['quit']);
    expect(press(start(), '/', { input: 'c', ctrlC: true }).effects).toEqual(['quit']);
    expect(press(start(), '1', 'K', { input: 'c', ctrlC: true }).effects).toEqual(['quit']);
  });

  it('keys that arrive together in one read are each a key, in order', () => {
    const r = handleInput(start(), { input: '2K' });
    expect(r.state.confirmKillId).toBe('synapse-echo-8191');
    expect(handleInput(r.state, { input: 'y' }).effects.map((e) => e.kind)).toEqual(['kill']);
    expect(handleInput(start(), { input: 'q1' }).effects.map((e) => e.kind)).toEqual(['quit']);
    expect(handleInput(start(), { input: '/web' }).state.filter).toBe('web');
    expect(handleInput(start(), { input: '/web\r' }).state).toMatchObject({ filter: 'web', typingFilter: false });
    expect(handleInput(start(), { input: '2\r' }).effects.map((e) => e.kind === 'jump' && e.agent.entry.name)).toEqual(['bob']);
    expect(handleInput(start(), { input: '/web\x7f\x1b' }).state).toMatchObject({ filter: '', typingFilter: false });
  });
});
