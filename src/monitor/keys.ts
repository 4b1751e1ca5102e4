import type { AgentRow } from './columns.js';
import { selectedAgent, selectedIndex, settle, visibleAgents, type MonitorState } from './model.js';

/** One key as the monitor reads it (the view maps Ink's `useInput` to this). */
export interface KeyPress {
  /** The text typed (a pasted run arrives as one string); '' for a special key. */
  input: string;
  up?: boolean;
  down?: boolean;
  enter?: boolean;
  escape?: boolean;
  backspace?: boolean;
  ctrlC?: boolean;
}

/** What the key asks the world to do, besides the new state. */
export type Effect = { kind: 'quit' } | { kind: 'jump'; agent: AgentRow } | { kind: 'kill'; agent: AgentRow };

export interface KeyResult {
  state: MonitorState;
  effect: Effect | null;
}

export const KEY_HELP = '1-9 select  ↑/↓ move  Enter/j jump  K kill  / filter  ESC clear  q quit';

const NO_SELECTION = 'select an agent first: 1-9 or ↑/↓';

/** Who an agent is, in one line: `bob (synapse-echo-8190)`. */
export function agentLabel(row: AgentRow): string {
  return row.entry.name ? `${row.entry.name} (${row.entry.agent_id})` : row.entry.agent_id;
}

const keep = (state: MonitorState): KeyResult => ({ state, effect: null });

function move(state: MonitorState, delta: 1 | -1): MonitorState {
  const rows = visibleAgents(state);
  if (rows.length === 0) return state;
  const at = selectedIndex(state);
  const next = at === null ? (delta > 0 ? 0 : rows.length - 1) : Math.min(rows.length - 1, Math.max(0, at + delta));
  return { ...state, selectedId: rows[next]!.entry.agent_id, message: null };
}

/** Typing the filter: text, Backspace, Enter keeps it, ESC clears it; ↑/↓ still move. */
function filterKey(state: MonitorState, key: KeyPress): KeyResult {
  if (key.escape) return keep(settle({ ...state, filter: '', typingFilter: false }));
  if (key.enter) return keep({ ...state, typingFilter: false });
  if (key.up) return keep(move(state, -1));
  if (key.down) return keep(move(state, 1));
  if (key.backspace) return keep(settle({ ...state, filter: [...state.filter].slice(0, -1).join('') }));
  // Only printable text goes into the filter (a paste may carry newlines or escapes).
  const text = key.input.replace(/[\p{Cc}\p{Cf}]/gu, '');
  return text ? keep(settle({ ...state, filter: state.filter + text })) : keep(state);
}

/** "Kill bob? y/n": y kills, n or ESC cancels, anything else waits for one of them. */
function confirmKey(state: MonitorState, key: KeyPress): KeyResult {
  const row = state.agents.find((r) => r.entry.agent_id === state.confirmKillId);
  if (!row) return keep({ ...state, confirmKillId: null });
  if (key.input === 'y' || key.input === 'Y')
    return { state: { ...state, confirmKillId: null, message: `stopping ${agentLabel(row)}…` }, effect: { kind: 'kill', agent: row } };
  if (key.input === 'n' || key.input === 'N' || key.escape) return keep({ ...state, confirmKillId: null, message: 'kill cancelled' });
  return keep(state);
}

/**
 * The monitor's keys: 1-9 select a row, ↑/↓ move, Enter or j jump to the agent's pane, K kill
 * (after y/n), / filter, ESC clears the filter (then the selection), q or Ctrl+C quit.
 */
export function handleKey(state: MonitorState, key: KeyPress): KeyResult {
  if (key.ctrlC) return { state, effect: { kind: 'quit' } };
  if (state.confirmKillId !== null) return confirmKey(state, key);
  if (state.typingFilter) return filterKey(state, key);
  if (key.up) return keep(move(state, -1));
  if (key.down) return keep(move(state, 1));
  if (key.escape) {
    if (state.filter) return keep(settle({ ...state, filter: '', message: null }));
    return keep({ ...state, selectedId: null, message: null });
  }
  if (key.enter || key.input === 'j') {
    const row = selectedAgent(state);
    return row
      ? { state: { ...state, message: `jumping to ${agentLabel(row)}…` }, effect: { kind: 'jump', agent: row } }
      : keep({ ...state, message: NO_SELECTION });
  }
  switch (key.input) {
    case 'q':
      return { state, effect: { kind: 'quit' } };
    case '/':
      return keep({ ...state, typingFilter: true, message: null });
    case 'K': {
      const row = selectedAgent(state);
      return keep(row ? { ...state, confirmKillId: row.entry.agent_id, message: null } : { ...state, message: NO_SELECTION });
    }
    default:
      break;
  }
  if (/^[1-9]$/.test(key.input)) {
    const row = visibleAgents(state)[Number(key.input) - 1];
    return keep(row ? { ...state, selectedId: row.entry.agent_id, message: null } : { ...state, message: `there is no row ${key.input}` });
  }
  return keep(state);
}

/** A control character inside a run of keys, as the key it is. */
const CONTROL_KEYS: Record<string, KeyPress> = {
  '\r': { input: '', enter: true },
  '\n': { input: '', enter: true },
  '\x7f': { input: '', backspace: true },
  '\b': { input: '', backspace: true },
  '\x1b': { input: '', escape: true },
  '\x03': { input: 'c', ctrlC: true },
};

/**
 * Keys that arrive together (typed fast, or sent by a program such as `tmux send-keys`) come as
 * one string: each character is a key of its own, in order (Enter, Backspace and ESC among them),
 * and each may ask for an effect. A quit ends the run.
 */
export function handleInput(state: MonitorState, key: KeyPress): { state: MonitorState; effects: Effect[] } {
  const special = key.up || key.down || key.enter || key.escape || key.backspace || key.ctrlC;
  const chars = [...key.input];
  if (special || chars.length <= 1) {
    const one = handleKey(state, key);
    return { state: one.state, effects: one.effect ? [one.effect] : [] };
  }
  let next = state;
  const effects: Effect[] = [];
  for (const ch of chars) {
    const one = handleKey(next, CONTROL_KEYS[ch] ?? { input: ch });
    next = one.state;
    if (one.effect) effects.push(one.effect);
    if (one.effect?.kind === 'quit') break;
  }
  return { state: next, effects };
}
