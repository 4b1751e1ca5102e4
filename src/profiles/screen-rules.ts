import type { AgentStatus, Profile, ScreenRule, ScreenView } from './types.js';

function considered(view: ScreenView, rule: ScreenRule): string[] {
  const lines = trimTrailingBlank(view.lines);
  return rule.lastRows === undefined ? lines : lines.slice(-rule.lastRows);
}

export function trimTrailingBlank(lines: string[]): string[] {
  let end = lines.length;
  while (end > 0 && (lines[end - 1] ?? '').trim() === '') end--;
  return lines.slice(0, end);
}

function ruleMatches(view: ScreenView, rule: ScreenRule): boolean {
  const lines = considered(view, rule);
  return rule.patterns.every((re) => lines.some((l) => re.test(l))) && (rule.match === undefined || rule.match(lines));
}

function anyRule(view: ScreenView, rules: ScreenRule[]): boolean {
  return rules.some((r) => ruleMatches(view, r));
}

/**
 * The profile's reading of one settled screen: WAITING first (a dialog can sit above a
 * footer that still says "esc to interrupt"), then PROCESSING, then READY; `null` when no
 * rule matches and the caller must fall back on quiet time.
 */
export function classifyScreen(profile: Profile, view: ScreenView): Exclude<AgentStatus, 'STARTING' | 'DONE' | 'EXITED'> | null {
  if (anyRule(view, profile.status.waiting)) return 'WAITING';
  if (anyRule(view, profile.status.processing)) return 'PROCESSING';
  if (anyRule(view, profile.status.ready)) return 'READY';
  return null;
}

export function viewOf(lines: string[]): ScreenView {
  return { lines, text: lines.join('\n') };
}
