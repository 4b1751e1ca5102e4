import type { AgentRow } from './columns.js';

/**
 * The monitor's `/` filter: an agent matches when its type, name or working directory contains
 * the text, ignoring case (as the original Synapse's list filter). Empty text matches every agent.
 */
export function matchesFilter(row: AgentRow, text: string): boolean {
  const needle = text.trim().toLowerCase();
  if (!needle) return true;
  const { agent_type, name, working_dir } = row.entry;
  return [agent_type, name ?? '', working_dir].some((field) => field.toLowerCase().includes(needle));
}

export function applyFilter(rows: readonly AgentRow[], text: string): AgentRow[] {
  return rows.filter((r) => matchesFilter(r, text));
}
