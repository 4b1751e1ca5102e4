import { PORT_RANGES } from './ports.js';
import { trimTrailingBlank } from './screen-rules.js';
import { afterLastEcho, trimBlankEdges } from './text.js';
import type { Profile } from './types.js';

/** Every box OpenCode draws (the input box, echoed prompts, tool output) has this left border. */
const BAR = /^\s*┃/;
const BAR_TEXT = /^\s*┃ {0,2}/;
/** The input box's bottom edge: `╹▀▀▀…`. */
const BOX_BOTTOM = /^\s*╹▀{10,}/;
/**
 * The row right above the bottom edge names the agent, model and provider:
 * `┃  Build · Mock Model Mock` (drawn `┃  Build   Mock Model Mock`, with no `·` or `…` anywhere, in
 * a run whose start-up was disturbed by input pasted before the TUI was up).
 */
const AGENT_ROW = /^\s*┃ {2}\S/;
/** The empty box on the start (home) view; the session view shows an empty box instead. */
const PLACEHOLDER = /^Ask anything\b/;
/** The footer below the box while a turn runs: `⬝⬝■■⬝⬝⬝⬝  esc interrupt` (`esc again to interrupt` after one Esc). */
const WORKING = /\besc (again to )?interrupt\b/;
const DIALOG = /△ Permission required/;
/**
 * The row under each assistant turn: `▣  Build · Mock Model` while it runs (and after a rejected
 * tool), `▣  Build · Mock Model · 2.8s` / `· 192ms` once it finished, `· interrupted` after Esc Esc.
 */
const TURN_ROW = /^\s*▣\s/;
const TURN_DONE = /^\s*▣\s.* · (\d+(\.\d+)?m?s|\d+m \d+s)\s*$/;
/** Footer rows: the idle one (cwd, tokens, `ctrl+p commands`) and the working one. */
const FOOTER = /ctrl\+p commands|tab agents|esc (again to )?interrupt/;
/** Tool rows outside a box: `$ cmd` (while it waits for approval), `⠋ cmd` (while it runs). */
const TOOL = /^\s{5}[$⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] /;
/** Most rows the input box grows to (multi-line input) before we stop looking up. */
const MAX_INPUT_ROWS = 12;

/** The input box: its text rows (padding rows included) above the agent row; null when none. */
function inputBox(rows: string[]): string[] | null {
  const lines = trimTrailingBlank(rows);
  // The last `╹▀▀▀` edge: near the bottom in the session view, mid-screen on the start view.
  for (let end = lines.length - 1; end > 0; end--) {
    if (!BOX_BOTTOM.test(lines[end] ?? '')) continue;
    if (!AGENT_ROW.test(lines[end - 1] ?? '')) return null;
    const box: string[] = [];
    for (let i = end - 2; i >= 0 && end - 2 - i < MAX_INPUT_ROWS && BAR.test(lines[i] ?? ''); i--) box.unshift(lines[i] ?? '');
    return box;
  }
  return null;
}

function footer(rows: string[]): string {
  return trimTrailingBlank(rows).at(-1) ?? '';
}

const echoRow = (r: string) => BAR.test(r);
const echoText = (r: string) => r.replace(BAR_TEXT, '');

/**
 * OpenCode (observed on 1.18.33, `opencode-ai` on npm): a full-screen TUI on the alternate
 * screen. Before the first message a start view shows the logo and a centred box
 * `┃  Ask anything… "<example>"`; the first submit switches (after up to ~2 s of blank screen)
 * to the session view: transcript on top, then the input box (`┃` rows, the agent row
 * `┃  Build · <model> <provider>`, a `╹▀▀▀` edge) and one footer row that reads
 * `esc interrupt` while a turn runs. A turn ends with `▣  Build · <model> · <duration>`.
 * Permission dialogs (`△ Permission required`) offer `Allow once   Allow always   Reject` on one
 * row, picked with ←/→ and Enter (Esc rejects); OpenCode asks only where its `permission`
 * config says `ask` — by default it runs shell commands without asking.
 */
export const opencodeProfile: Profile = {
  id: 'opencode',
  aliases: ['opencode-ai'],
  displayName: 'OpenCode',
  description: 'OpenCode (sst/opencode) wrapped by Synapse.',
  command: 'opencode',
  args: [],
  // Its terminal title is `OC | <session title>` either way; nothing here needs a title.
  env: { OPENCODE_DISABLE_AUTOUPDATE: '1' },
  ports: PORT_RANGES.opencode,
  resumeFlags: ['--continue', '-c', '--session', '-s'],
  // The choices are one row, not a numbered menu: the highlight (first = `Allow once`, told apart
  // by its background colour only) moves with ←/→, wrapping around, and Enter confirms; digits
  // do nothing.
  permission: { question: DIALOG, select: 'row' },
  // "auto-approve permissions that are not explicitly denied" (`opencode --help`).
  autoApproveArgs: ['--auto'],
  // Paste + CR worked with 0, 10 and 50 ms between them and even in one write; multi-line pastes
  // show as `[Pasted ~N lines]` in the box and reach the model intact. The first submit moves to
  // the session view, which took up to ~4 s to show the echo on two loaded cores.
  submit: { bracketedPaste: true, key: '\r', delayMs: 50, confirmMs: 8000 },
  // One Esc only arms the interrupt (`esc again to interrupt`, for 5 s); the second aborts. Two
  // raw ESC bytes in one write read as one key, and under ~25 ms apart as well; two kitty-protocol
  // Escape presses (CSI 27 u) in one write are two key presses and abort at once. Never Ctrl-C:
  // with an empty box it quits OpenCode.
  interrupt: { kind: 'key', key: '\x1b[27u\x1b[27u' },
  // Ctrl-U empties the box (so does Ctrl-C with text in it, but Ctrl-C on an empty box quits).
  clearInputKey: '\x15',
  status: {
    waiting: [{ patterns: [DIALOG, /Allow once/] }],
    processing: [{ patterns: [], match: (rows) => WORKING.test(footer(rows)) }],
    ready: [{ patterns: [], match: (rows) => inputBox(rows) !== null }],
    quietReadyMs: null,
  },
  inputText(view) {
    const box = inputBox(view.lines);
    if (!box) return null;
    const text = box
      .map(echoText)
      .map((r) => r.trimEnd())
      .join('\n')
      .trim();
    return PLACEHOLDER.test(text) ? '' : text;
  },
  // After the first submit the start view shows an empty box for ~0.3–0.5 s, then the screen is
  // blank for ~1 s before the session view: READY must hold longer than that.
  idleConfirmMs: 3000,
  turnEnded(lines, userText) {
    const rows = lines.map((l) => l.replace(/\s+$/, ''));
    const start = afterLastEcho(rows, userText, echoRow, echoText);
    return start > 0 && rows.slice(start).some((r) => TURN_DONE.test(r));
  },
  cleanOutput(lines: string[], userText: string): string {
    const rows = lines.map((l) => l.replace(/\s+$/, ''));
    const start = afterLastEcho(rows, userText, echoRow, echoText);
    const out: string[] = [];
    for (const line of rows.slice(start)) {
      if (BAR.test(line) || BOX_BOTTOM.test(line) || TURN_ROW.test(line) || FOOTER.test(line) || TOOL.test(line)) continue;
      out.push(line.replace(/^ {5}/, ''));
    }
    return trimBlankEdges(out).join('\n');
  },
};
