import { PORT_RANGES } from './ports.js';
import { trimTrailingBlank } from './screen-rules.js';
import { afterLastEcho, trimBlankEdges } from './text.js';
import { screenTurns } from './turns.js';
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
/**
 * The footer while a turn runs starts with an 8-cell progress bar: `⬝⬝■■⬝⬝⬝⬝  esc interrupt`
 * (`esc again to interrupt` after one Esc), or, while the provider is retried,
 * `⬝⬝⬝⬝⬝⬝⬝⬝ Cannot connect to API: … [retrying in 2s attempt #1]` with the interrupt hint
 * wrapped away. The idle footer is the cwd and `tab agents  ctrl+p commands`.
 */
const WORKING = /^[⬝■]{8}|\besc (again to )?interrupt\b/;
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

/**
 * The footer: the rows under the input box's bottom edge, joined (a long footer wraps into a
 * column of fragments at the right edge); the last row when no box is drawn.
 */
function footer(rows: string[]): string {
  const lines = trimTrailingBlank(rows);
  let edge = lines.length - 1;
  while (edge >= 0 && !BOX_BOTTOM.test(lines[edge] ?? '')) edge--;
  if (edge < 0) return lines.at(-1) ?? '';
  return lines
    .slice(edge + 1)
    .map((l) => l.trim())
    .join('');
}

const echoRow = (r: string) => BAR.test(r);
const echoText = (r: string) => r.replace(BAR_TEXT, '');

/** The rows (trailing spaces off) and where this message's echo ends in them (0: not found). */
function afterEcho(lines: string[], userText: string): { rows: string[]; start: number } {
  const rows = lines.map((l) => l.replace(/\s+$/, ''));
  return { rows, start: afterLastEcho(rows, userText, echoRow, echoText) };
}

/** This message's turn finished: `▣  Build · <model> · <duration>` below the message's echo. */
function turnEnded(lines: string[], userText: string): boolean {
  const { rows, start } = afterEcho(lines, userText);
  return start > 0 && rows.slice(start).some((r) => TURN_DONE.test(r));
}

/**
 * This message's turn began: a `▣` row below its echo. The echo sits under an idle footer, with no
 * `▣` row yet, for up to ~3.5 s on the first turn (seen on two loaded cores); every turn that
 * starts draws that row, even one that fails.
 */
function turnStarted(lines: string[], userText: string): boolean {
  const { rows, start } = afterEcho(lines, userText);
  return start > 0 && rows.slice(start).some((r) => TURN_ROW.test(r));
}

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
  usageLog: 'opencode',
  displayName: 'OpenCode',
  description: 'OpenCode (sst/opencode) wrapped by Synapse.',
  command: 'opencode',
  args: [],
  // Its terminal title is `OC | <session title>` either way; nothing here needs a title.
  env: { OPENCODE_DISABLE_AUTOUPDATE: '1' },
  // 1.18.33 starts its TUI with CI=true and the other CI variables.
  dropEnv: [],
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
  // Under load one CI run's presses were lost (still working 10 s later): a second pair while it
  // is still busy is harmless.
  interrupt: { kind: 'key', key: '\x1b[27u\x1b[27u', retryMs: 1000 },
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
  // blank for ~1 s before the session view: READY must hold longer than that. A turn ends with
  // `▣  Build · <model> · 1.2s`; until a `▣` row shows, the turn has not started.
  turn: screenTurns({ idleConfirmMs: 3000, ended: turnEnded, started: turnStarted }),
  cleanOutput(lines: string[], userText: string): string {
    const { rows, start } = afterEcho(lines, userText);
    // Everything under the input box's last edge is footer (the retry notice wraps there too).
    let end = rows.length;
    for (let i = rows.length - 1; i >= start; i--) {
      if (BOX_BOTTOM.test(rows[i] ?? '')) {
        end = i;
        break;
      }
    }
    const out: string[] = [];
    for (const line of rows.slice(start, end)) {
      if (BAR.test(line) || BOX_BOTTOM.test(line) || TURN_ROW.test(line) || FOOTER.test(line) || TOOL.test(line)) continue;
      out.push(line.replace(/^ {5}/, ''));
    }
    return trimBlankEdges(out).join('\n');
  },
};
