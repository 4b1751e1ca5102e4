import type { PlanSpec } from './types.js';

/** What the CLI's plan-approval screen shows: the plan, read off the screen. */
export interface PlanPrompt {
  /** The plan as the CLI shows it, without its frame (rules, the one-space indent). */
  text: string;
}

/** A row that frames the plan: a rule of dashes of any weight. */
const FRAME = /^\s*[─━╌┄┈═-]{10,}\s*$/;

/** The lowest row matching `re`, or -1. */
function lastRowMatching(lines: string[], re: RegExp, below = -1): number {
  for (let i = lines.length - 1; i > below; i--) if (re.test(lines[i] ?? '')) return i;
  return -1;
}

/**
 * Reads a plan-approval screen: the question row (`spec.question`, e.g. "Would you like to
 * proceed?") below a heading row (`spec.heading`, "Here is Claude's plan:"); the plan is every row
 * between them, with the frame rules dropped, blank edges trimmed and the common indent removed.
 * Null when the question is not on the screen, or no heading stands above it (another dialog).
 */
export function parsePlanDialog(lines: string[], spec: PlanSpec): PlanPrompt | null {
  const q = lastRowMatching(lines, spec.question);
  if (q < 0) return null;
  let h = -1;
  for (let i = q - 1; i >= 0; i--) {
    if (spec.heading.test(lines[i] ?? '')) {
      h = i;
      break;
    }
  }
  if (h < 0) return null;
  const rows = lines.slice(h + 1, q).filter((r) => !FRAME.test(r));
  while (rows.length > 0 && rows[0]!.trim() === '') rows.shift();
  while (rows.length > 0 && rows.at(-1)!.trim() === '') rows.pop();
  const indent = Math.min(...rows.filter((r) => r.trim() !== '').map((r) => /^ */.exec(r)![0].length));
  const text = rows
    .map((r) => r.slice(Number.isFinite(indent) ? indent : 0).replace(/\s+$/, ''))
    .join('\n')
    .trim();
  return { text };
}
