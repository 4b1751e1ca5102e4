import { PORT_RANGES } from './ports.js';
import { trimTrailingBlank } from './screen-rules.js';
import { afterLastEcho, boxText, trimBlankEdges } from './text.js';
import { screenTurns } from './turns.js';
import type { Profile } from './types.js';

// Sources. Flags, env and config keys: `copilot --help`, `copilot help providers|environment|config`
// of 1.0.102, and https://docs.github.com/en/copilot/reference/copilot-cli-reference/cli-programmatic-reference
// (`--allow-all` = `--yolo` = `--allow-all-tools --allow-all-paths --allow-all-urls`). Screens:
// recorded from 1.0.102 under node-pty in BYOK offline mode (COPILOT_OFFLINE=true,
// COPILOT_PROVIDER_BASE_URL pointing at the mock model server), see
// test/fixtures/screens/copilot/1.0.102/README.md. The permission dialog matches the one quoted in
// https://github.com/github/copilot-cli/issues/2955 and #2693 (box with "Do you want to run this
// command?"). The e2e suite (test/e2e/copilot.test.ts) drives 1.0.102 live in that BYOK mode.

const RULE = /^─{10,}/;
/** The input row starts in column 0; the echo of a sent prompt in the transcript is indented (` ❯ text   HH:MM`). */
const PROMPT = /^❯(\s|$)/;
const ECHO = /^ ❯ /;
/** The clock Copilot prints at the right of an echoed prompt, and the scrollbar in the last column. */
const ECHO_TIME = /\s+\d{1,2}:\d{2}\s*$/;
const SCROLLBAR = /\s*┃\s*$/;
/** The footer while a turn runs: a pulsing glyph and `Working` (`◉ Working esc esc edit prompt`, `● Working · 96 B …`). */
const WORKING = /^\s*[◉●○◎◐◑◒◓]\s+Working\b/;
/** Without a GitHub login (and no BYOK provider) the idle box is drawn but nothing can be sent. */
const NOT_LOGGED_IN = /Please use \/login to sign in|You must be logged in to send messages/;
const TOOL_DIALOG = /Do you want to run this command\?/;
const TRUST_DIALOG = /Do you trust the files in this folder\?/;
const RESPONSE_MARK = /^ ● /;
/** `$ Shell cmd`, `✗ Shell cmd …`: a tool call row, followed by its indented detail rows. */
const TOOL_ROW = /^ [$✗✓●] (Shell|Read|View|Edit|Create|Search|Fetch)\b/;
const CHROME = /^ ● (Tip:|MCP Servers reloaded|Operation cancelled by user)|^ {3}└ /;

/** Rows of the input box: the `❯` row right below a rule, continuation rows down to the next rule. */
function inputBox(rows: string[]): { first: number; end: number } | null {
  const lines = trimTrailingBlank(rows);
  for (let i = lines.length - 1; i > 0; i--) {
    if (!PROMPT.test(lines[i] ?? '') || !RULE.test(lines[i - 1] ?? '')) continue;
    for (let end = i + 1; end < lines.length; end++) if (RULE.test(lines[end] ?? '')) return { first: i, end };
  }
  return null;
}

function ready(rows: string[]): boolean {
  return inputBox(rows) !== null && !rows.some((r) => NOT_LOGGED_IN.test(r));
}

/**
 * GitHub Copilot CLI (recorded on 1.0.102 and driven by the e2e suite, BYOK against the mock).
 * Alternate screen. Bottom block: ` ~/project` (cwd), a `────` rule, the input row `❯ <text>`, a
 * second rule, one footer row: idle ` ← open sidebar · Interactive · Manual Approval · / commands ·
 * ? help · tab next tab` (` Interactive · Manual Approval · @ files · # issues` while the box holds
 * text), working ` ◉ Working esc esc edit prompt`. Approvals replace the block with a box asking
 * `Do you want to run this command?` / `❯ 1. Yes` / `2. Yes, and don't ask again for …` / `3. No,
 * and tell Copilot what to do differently (Esc to stop)`.
 */
export const copilotProfile: Profile = {
  id: 'copilot',
  aliases: ['copilot-cli', 'github-copilot'],
  usageLog: 'copilot',
  displayName: 'GitHub Copilot CLI',
  description: 'GitHub Copilot CLI wrapped by Synapse.',
  command: 'copilot',
  args: [],
  env: {},
  // 1.0.102 starts its TUI with CI=true and the other CI variables.
  dropEnv: [],
  ports: PORT_RANGES.copilot,
  // `copilot --help`: `-r, --resume [<value>]` and `--continue` (most recent session).
  resumeFlags: ['--resume', '--continue', '-r'],
  // Seen: digits 1 and 2 pick at once, but `3` only moves the highlight (it asks for feedback after
  // Enter), so answers go by arrows + Enter. The trust dialog at start uses the same menu.
  // Enter on `3. No, and tell Copilot …` opens a feedback prompt and keeps the dialog; Esc denies
  // (`Confirmation cancelled`, `Operation cancelled by user`) and the model gets nothing more.
  permission: { question: /Do you want to run this command\?|Do you trust the files in this folder\?/, select: 'arrows', denyKey: '\x1b' },
  autoApproveArgs: ['--allow-all'],
  // Seen: paste, then CR 80 ms or 150 ms later, always submitted.
  submit: { bracketedPaste: true, key: '\r', delayMs: 100, confirmMs: 3000 },
  // Seen: one Esc does nothing while waiting for the model, and Esc Esc in one write neither; two
  // Escs 150 ms apart or one Ctrl-C abort the request. Ctrl-C while idle only shows `ctrl+c again to exit`.
  // After Ctrl-C the Working footer goes, comes back ~100 ms later, and `Operation cancelled by
  // user` shows at ~250 ms; a message pasted in between was aborted with the old turn and put back
  // in the box (seen in e2e runs under load). Wait well past that.
  interrupt: { kind: 'key', key: '\x03', settleMs: 800 },
  // No clearInputKey: Ctrl-U removed only the last row of a two-row input.
  status: {
    waiting: [{ patterns: [TOOL_DIALOG] }, { patterns: [TRUST_DIALOG] }],
    processing: [{ patterns: [WORKING], lastRows: 2 }],
    ready: [{ patterns: [], match: ready }],
    quietReadyMs: null,
  },
  inputText(view) {
    const box = inputBox(view.lines);
    if (!box) return null;
    return boxText(view.lines, box, PROMPT);
  },
  // No end-of-turn row. Seen: the `Working` footer goes first, then the answer is typed out in
  // frames 20-80 ms apart (an e2e run under load finished a task on `MOCK: A2A: [F`). The reply
  // must hold still 150 ms.
  turn: screenTurns({ idleConfirmMs: 500, settleMs: 150 }),
  cleanOutput(lines: string[], userText: string): string {
    const rows = lines.map((l) => l.replace(SCROLLBAR, '').replace(/\s+$/, ''));
    const start = afterLastEcho(
      rows,
      userText,
      (r) => ECHO.test(r),
      (r) => r.replace(ECHO, '').replace(ECHO_TIME, ''),
    );
    // Stop at the input block: the cwd row above its first rule.
    const box = inputBox(rows);
    const end = box && box.first - 2 >= start ? box.first - 2 : rows.length;
    const out: string[] = [];
    let inTool = false;
    let inDialog = false;
    for (const line of rows.slice(start, end)) {
      if (/^╭/.test(line)) inDialog = true;
      if (inDialog) {
        if (/^╰/.test(line)) inDialog = false;
        continue;
      }
      if (RULE.test(line) || ECHO.test(line) || CHROME.test(line)) continue;
      if (TOOL_ROW.test(line)) {
        inTool = true;
        continue;
      }
      if (inTool && /^ {3}\S|^ {5}/.test(line)) continue;
      inTool = false;
      out.push(line.replace(RESPONSE_MARK, '').replace(/^ {3}/, ''));
    }
    return trimBlankEdges(out).join('\n');
  },
};
