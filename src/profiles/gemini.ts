import { PORT_RANGES } from './ports.js';
import { afterLastEcho, boxText, trimBlankEdges } from './text.js';
import { screenTurns } from './turns.js';
import type { Profile } from './types.js';

const TOP = /^▄{10,}/;
const BOTTOM = /^▀{10,}/;
/** `>` normally, `*` in YOLO mode (`--yolo`, `synapse gemini --auto-approve`). */
const PROMPT = /^\s*[>*]\s/;
const PLACEHOLDER = /Type your message or @path\/to\/file/;
const RESPONSE_MARK = /^✦\s?/;
const CHROME = /\? for shortcuts|Shift\+Tab to accept edits|YOLO Ctrl\+Y|^\s*workspace \(\/directory\)|no sandbox|^\s*\/tmp\/|esc to cancel|^─{10,}/;

/** How tall the input box may grow (wrapped or multi-line input) before we stop looking up. */
const MAX_INPUT_ROWS = 12;

/**
 * The input box, the last one on screen: a `>` row right below a ▄▄▄ rule, then its continuation
 * rows (wrapped or multi-line input, a trailing blank row) down to the ▀▀▀ rule. Returns the prompt
 * row and the closing rule's row.
 */
function inputBoxRows(rows: string[]): { first: number; end: number } | null {
  for (let end = rows.length - 1; end > 1; end--) {
    if (!BOTTOM.test(rows[end] ?? '')) continue;
    for (let i = end - 1; i > 0 && end - i <= MAX_INPUT_ROWS; i--) {
      const row = rows[i] ?? '';
      if (TOP.test(row) || BOTTOM.test(row)) break;
      if (PROMPT.test(row) && TOP.test(rows[i - 1] ?? '')) return { first: i, end };
    }
  }
  return null;
}

function inputBox(rows: string[]): number {
  return inputBoxRows(rows)?.first ?? -1;
}

/** The rows between the last input box and the transcript: Gemini's status line lives there. */
function statusRow(rows: string[]): string {
  const i = inputBox(rows);
  const from = i < 0 ? Math.max(0, rows.length - 8) : Math.max(0, i - 6);
  return rows.slice(from, i < 0 ? rows.length : i).join('\n');
}

/**
 * Gemini CLI (observed on 0.61.0): the input box is a `>` row between ▄▄▄ and ▀▀▀ rules,
 * showing `Type your message or @path/to/file` when empty; working shows `esc to cancel`;
 * approvals ask `Allow execution of …?`.
 */
export const geminiProfile: Profile = {
  id: 'gemini',
  aliases: ['gemini-cli'],
  usageLog: 'gemini',
  displayName: 'Gemini CLI',
  description: 'Google Gemini CLI wrapped by Synapse.',
  command: 'gemini',
  args: [],
  env: { COLORTERM: 'truecolor' },
  // 0.61.0: `CI=true` or `GITHUB_ACTIONS=true` means headless (isHeadlessMode): no TUI, and with no
  // prompt it exits at once with 42 (FatalInputError). `NO_COLOR` draws the input box between ───
  // rules instead of the ▄▄▄/▀▀▀ bars the READY rule reads, so the agent would never be READY.
  dropEnv: ['CI', 'GITHUB_ACTIONS', 'NO_COLOR'],
  ports: PORT_RANGES.gemini,
  // `gemini --help`: `-r, --resume` (the original lists both).
  resumeFlags: ['--resume', '-r'],
  permission: { question: /Allow execution of|Apply this change\?|Allow edit/, select: 'digit' },
  autoApproveArgs: ['--yolo'],
  // The CR must come at least 60 ms after the paste or Gemini takes it as part of the paste.
  submit: { bracketedPaste: true, key: '\r', delayMs: 100, confirmMs: 3000, firstInputDelayMs: 500 },
  interrupt: { kind: 'key', key: '\x1b' },
  clearInputKey: '\x15',
  status: {
    waiting: [{ patterns: [/Allow execution of|Apply this change\?/] }],
    // Only the status row above the (last) input box counts: a resize leaves stale copies above.
    processing: [{ patterns: [], match: (rows) => statusRow(rows).includes('esc to cancel') }],
    ready: [{ patterns: [], match: (rows) => inputBox(rows) >= 0 }],
    quietReadyMs: null,
  },
  inputText(view) {
    const box = inputBoxRows(view.lines);
    if (!box) return null;
    if (PLACEHOLDER.test(view.lines[box.first] ?? '')) return '';
    return boxText(view.lines, box, PROMPT);
  },
  // No end-of-turn row: a turn never seen busy ends after 500 ms of a still idle screen.
  turn: screenTurns({ idleConfirmMs: 500 }),
  cleanOutput(lines: string[], userText: string): string {
    const rows = lines.map((l) => l.replace(/\s+$/, ''));
    const start = afterLastEcho(
      rows,
      userText,
      (r) => PROMPT.test(r) && !PLACEHOLDER.test(r),
      (r) => r.replace(PROMPT, ''),
    );
    const out: string[] = [];
    let inBox = false;
    for (const line of rows.slice(start)) {
      if (/^\s*╭/.test(line)) inBox = true; // tool call boxes
      if (inBox) {
        if (/^\s*╰/.test(line)) inBox = false;
        continue;
      }
      if (TOP.test(line) || BOTTOM.test(line) || PROMPT.test(line) || CHROME.test(line)) continue;
      out.push(line.replace(RESPONSE_MARK, '').replace(/^ {2}/, ''));
    }
    return trimBlankEdges(out).join('\n');
  },
};
