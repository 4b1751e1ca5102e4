import type { PermissionChoice, Profile } from './types.js';

export interface PermissionPrompt {
  prompt: string;
  choices: PermissionChoice[];
  /** The key of the highlighted choice (where Enter would land now). */
  selected: string | null;
}

const BOX = /^[\s│┃|]+|[\s│┃|]+$/g;
const CHOICE = /^([❯›●>▶*]\s*)?(\d{1,2})\.\s+(.+)$/;

/** The lowest row matching `re` (the newest dialog's question), or -1. */
function lastRowMatching(lines: string[], re: RegExp): number {
  for (let i = lines.length - 1; i >= 0; i--) if (re.test(lines[i] ?? '')) return i;
  return -1;
}

/**
 * Reads a numbered approval menu off the screen: the question row (matched by `question`) and the
 * `1. Yes` / `2. …` rows below it, with box borders and the selection marker stripped. Wrapped
 * labels (a row of plain text right under a choice) are joined onto it.
 */
export function parseNumberedDialog(lines: string[], question: RegExp): PermissionPrompt | null {
  const q = lastRowMatching(lines, question);
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

/** Key hints drawn on the same row after the choices (`ctrl+f fullscreen  ⇆ select  enter confirm`). */
const ROW_HINT = /^(ctrl\+|alt\+|shift\+|⇆|↑|↓|←|→|enter\b|esc\b|tab\b)/i;

/**
 * Reads an approval dialog whose choices sit side by side on one row below the question
 * (OpenCode: `┃   Allow once   Allow always   Reject      ctrl+f fullscreen  ⇆ select …`).
 * Choices are separated by two or more spaces and keyed 1…n in order; key hints end the row.
 * The choice row is the lowest row under the question with two or more choices, so a command
 * shown in the dialog cannot pass for it. The highlight is often colour alone: `backgrounds(i)`
 * gives row i's background per character, and the one choice drawn on a background none of the
 * others has is the selected one (null when that cannot be told).
 */
export function parseRowDialog(lines: string[], question: RegExp, backgrounds?: (row: number) => string[]): PermissionPrompt | null {
  const q = lastRowMatching(lines, question);
  if (q < 0) return null;
  // A dialog drawn in a box: only rows with the question row's left border belong to it, so a
  // footer below the box cannot pass for the choices.
  const border = /^\s*[│┃|]/.exec(lines[q] ?? '')?.[0];
  for (let i = lines.length - 1; i > q; i--) {
    const row = lines[i] ?? '';
    if (border && !row.startsWith(border)) continue;
    const found: Array<{ label: string; at: number }> = [];
    const token = /\S+(?: \S+)*/g;
    for (let m = token.exec(row); m; m = token.exec(row)) {
      if (/^[│┃|]+$/.test(m[0])) continue;
      if (ROW_HINT.test(m[0])) break;
      const bar = /^[│┃|]\s*/.exec(m[0])?.[0].length ?? 0;
      found.push({ label: m[0].slice(bar), at: m.index + bar });
    }
    if (found.length < 2) continue;
    const choices = found.map((c, n) => ({ key: String(n + 1), label: c.label }));
    return { prompt: (lines[q] ?? '').replace(BOX, ''), choices, selected: highlighted(found, backgrounds?.(i)) };
  }
  return null;
}

/** The key (1-based) of the one choice whose background differs from all the others'. */
function highlighted(found: Array<{ at: number }>, bg: string[] | undefined): string | null {
  if (!bg || bg.length === 0) return null;
  const colours = found.map((c) => bg[c.at] ?? '');
  const unique = colours.map((c, n) => (colours.filter((o) => o === c).length === 1 ? n : -1)).filter((n) => n >= 0);
  // With two choices both are "unique": only a known default colour for the rest could tell.
  return unique.length === 1 ? String(unique[0]! + 1) : null;
}

/** The choice a caller meant: its key ("3"), or a word such as yes/approve/allow or no/deny. */
export function pickChoice(choices: PermissionChoice[], wanted: string): PermissionChoice | null {
  const w = wanted.trim().toLowerCase();
  const byKey = choices.find((c) => c.key === w);
  if (byKey) return byKey;
  if (['y', 'yes', 'approve', 'allow', 'ok', 'accept'].includes(w)) return choices.find((c) => /^(yes|allow|approve|proceed)/i.test(c.label)) ?? null;
  if (['n', 'no', 'deny', 'reject', 'decline'].includes(w)) return choices.find((c) => /^(no|reject|deny|decline)\b/i.test(c.label)) ?? null;
  return choices.find((c) => c.label.toLowerCase().startsWith(w)) ?? null;
}

const ARROWS = { vertical: ['\x1b[B', '\x1b[A'], horizontal: ['\x1b[C', '\x1b[D'] } as const;

/**
 * Keys that select `choice` in an arrow-driven menu: move from the highlighted choice (the first
 * when the highlight cannot be read: where the CLIs put it when a dialog opens), then Enter.
 * Never a bare Enter on whatever happens to be highlighted.
 */
export function menuKeys(prompt: PermissionPrompt, choice: PermissionChoice, direction: keyof typeof ARROWS = 'vertical'): string[] {
  const keys = prompt.choices.map((c) => c.key);
  const from = Math.max(0, keys.indexOf(prompt.selected ?? keys[0]!));
  const to = keys.indexOf(choice.key);
  const moves = to - from;
  const [next, previous] = ARROWS[direction];
  return [...Array<string>(Math.abs(moves)).fill(moves > 0 ? next : previous), '\r'];
}

/** The keys, one write each, that answer `prompt` with `choice` the way this CLI takes answers. */
export function answerKeys(permission: NonNullable<Profile['permission']>, prompt: PermissionPrompt, choice: PermissionChoice): string[] {
  if (permission.denyKey && pickChoice(prompt.choices, 'deny')?.key === choice.key) return [permission.denyKey];
  if (permission.select === 'arrows') return menuKeys(prompt, choice);
  if (permission.select === 'row') return menuKeys(prompt, choice, 'horizontal');
  return [choice.key];
}
