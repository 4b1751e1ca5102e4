import type { PermissionChoice } from './types.js';

export interface PermissionPrompt {
  prompt: string;
  choices: PermissionChoice[];
  /** The key of the highlighted choice (where Enter would land now). */
  selected: string | null;
}

const BOX = /^[\s│┃|]+|[\s│┃|]+$/g;
const CHOICE = /^([❯›●>▶*]\s*)?(\d{1,2})\.\s+(.+)$/;

/**
 * Reads a numbered approval menu off the screen: the question row (matched by `question`) and the
 * `1. Yes` / `2. …` rows below it, with box borders and the selection marker stripped. Wrapped
 * labels (a row of plain text right under a choice) are joined onto it.
 */
export function parseNumberedDialog(lines: string[], question: RegExp): PermissionPrompt | null {
  let q = -1;
  for (let i = lines.length - 1; i >= 0; i--) {
    if (question.test(lines[i] ?? '')) {
      q = i;
      break;
    }
  }
  if (q < 0) return null;
  const choices: PermissionChoice[] = [];
  let selected: string | null = null;
  for (let i = q + 1; i < lines.length; i++) {
    const row = (lines[i] ?? '').replace(BOX, '');
    const m = CHOICE.exec(row);
    if (m) {
      choices.push({ key: m[2]!, label: m[3]!.trim() });
      if (m[1]) selected = m[2]!;
      continue;
    }
    if (choices.length === 0 || row === '') continue;
    // A footer ("Press enter to confirm…", "Esc to cancel…", Copilot's "↑/↓ to navigate · …")
    // ends the menu; anything else right under a choice is its wrapped label.
    if (/^(press|esc|enter|↑)/i.test(row) || /^[╰╯╭╮─━═▀▄\s]+$/.test(row)) break;
    const last = choices.at(-1)!;
    last.label = `${last.label} ${row}`;
  }
  if (choices.length === 0) return null;
  return { prompt: (lines[q] ?? '').replace(BOX, ''), choices, selected };
}

/** The choice a caller meant: its key ("3"), or a word such as yes/approve/allow or no/deny. */
export function pickChoice(choices: PermissionChoice[], wanted: string): PermissionChoice | null {
  const w = wanted.trim().toLowerCase();
  const byKey = choices.find((c) => c.key === w);
  if (byKey) return byKey;
  if (['y', 'yes', 'approve', 'allow', 'ok', 'accept'].includes(w)) return choices.find((c) => /^(yes|allow|approve|proceed)/i.test(c.label)) ?? null;
  if (['n', 'no', 'deny', 'reject', 'decline'].includes(w)) return choices.find((c) => /^no\b/i.test(c.label)) ?? null;
  return choices.find((c) => c.label.toLowerCase().startsWith(w)) ?? null;
}

const DOWN = '\x1b[B';
const UP = '\x1b[A';

/**
 * Keys that select `choice` in an arrow-driven menu: move from the highlighted row, then Enter.
 * Never a bare Enter on whatever happens to be highlighted.
 */
export function menuKeys(prompt: PermissionPrompt, choice: PermissionChoice): string[] {
  const keys = prompt.choices.map((c) => c.key);
  const from = keys.indexOf(prompt.selected ?? keys[0]!);
  const to = keys.indexOf(choice.key);
  const moves = to - from;
  return [...Array<string>(Math.abs(moves)).fill(moves > 0 ? DOWN : UP), '\r'];
}
