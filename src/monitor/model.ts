import type { AgentRow } from './columns.js';
import { applyFilter } from './filter.js';
import { naturalCompare } from '../text-order.js';

/**
 * The monitor's state, pure data: the agents of the last registry read, the filter, the
 * selection and what the bottom line says. The view renders it; keys.ts and `withAgents` make
 * the next one. The selection and a pending kill follow an agent by id, not a row number, so a
 * refresh that reorders or removes rows never moves them to another agent.
 */
export interface MonitorState {
  /** Every live agent, in the order shown (by agent id). */
  agents: AgentRow[];
  /** True once the first read is in. */
  loaded: boolean;
  /** The applied filter (`/`); '' shows every agent. */
  filter: string;
  /** The filter is being typed (after `/`, until Enter or ESC). */
  typingFilter: boolean;
  selectedId: string | null;
  /** Asked "kill it? y/n" for this agent. */
  confirmKillId: string | null;
  /** One line of feedback: what a jump or kill did, or why it could not. */
  message: string | null;
}

export function initialState(): MonitorState {
  return { agents: [], loaded: false, filter: '', typingFilter: false, selectedId: null, confirmKillId: null, message: null };
}

/** The rows the filter lets through, in order. */
export function visibleAgents(state: MonitorState): AgentRow[] {
  return applyFilter(state.agents, state.filter);
}

/** The selected row's index among the visible ones, or null. */
export function selectedIndex(state: MonitorState): number | null {
  if (state.selectedId === null) return null;
  const i = visibleAgents(state).findIndex((r) => r.entry.agent_id === state.selectedId);
  return i < 0 ? null : i;
}

export function selectedAgent(state: MonitorState): AgentRow | null {
  const i = selectedIndex(state);
  return i === null ? null : (visibleAgents(state)[i] ?? null);
}

/** A selection or pending kill whose agent is no longer visible is dropped. */
export function settle(state: MonitorState): MonitorState {
  const visible = new Set(visibleAgents(state).map((r) => r.entry.agent_id));
  const selectedId = state.selectedId !== null && visible.has(state.selectedId) ? state.selectedId : null;
  const confirmKillId = state.confirmKillId !== null && visible.has(state.confirmKillId) ? state.confirmKillId : null;
  return selectedId === state.selectedId && confirmKillId === state.confirmKillId ? state : { ...state, selectedId, confirmKillId };
}

/** A fresh read of the registry replaces the agents (sorted by id, so rows keep their places). */
export function withAgents(state: MonitorState, agents: readonly AgentRow[]): MonitorState {
  const sorted = [...agents].sort((a, b) => naturalCompare(a.entry.agent_id, b.entry.agent_id));
  return settle({ ...state, agents: sorted, loaded: true });
}

export function withMessage(state: MonitorState, message: string | null): MonitorState {
  return { ...state, message };
}

/**
 * Which rows fit: a window of `capacity` rows out of `count` that holds the selected one,
 * scrolled no further than needed. `[start, end)`.
 */
export function rowWindow(count: number, selected: number | null, capacity: number): { start: number; end: number } {
  const size = Math.max(1, capacity);
  if (count <= size) return { start: 0, end: count };
  const start = selected === null || selected < size ? 0 : Math.min(selected - size + 1, count - size);
  return { start, end: start + size };
}
