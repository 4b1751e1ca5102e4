import { PORT_RANGES } from './ports.js';
import { trimTrailingBlank } from './screen-rules.js';
import { afterLastEcho, trimBlankEdges } from './text.js';
import { screenTurns } from './turns.js';
import type { Profile } from './types.js';

const PROMPT = /^›\s/;
const PLACEHOLDER = /^›\s+Ask Codex to do anything\s*$/;
const WORKING = /esc to interrupt/;
const CHROME = /^\s*(Worked for .*•|└ Tip:|GPT-[\d.]+ |← for agents|\? for shortcuts|Press enter to confirm)/;
const BULLET = /^[•◦]\s?/;
const TOOL = /^[•◦]\s+(Ran|Running|Explored|Edited|Read|Searched|Updated Plan)\b/;
const APPROVAL = /^[✔✗]\s+You (approved|denied|canceled)/;

const TURN_END = /Worked for .*•|Conversation interrupted|└ Tip:/;
/** What sits right above the input row while a turn streams: a bullet, or indented text. */
const STREAMING = /^[•◦]\s|^ {2}[A-Za-z0-9]/;

/**
 * Codex hides its Working row while it streams text, so "working" is also read from the row
 * right above the input: a finished turn always ends with `Worked for …` (or an interruption).
 */
function streaming(rows: string[]): boolean {
  const lines = trimTrailingBlank(rows);
  let i = inputRow(lines) - 1;
  while (i >= 0 && (lines[i] ?? '').trim() === '') i--;
  const above = lines[i] ?? '';
  return i >= 0 && STREAMING.test(above) && !TURN_END.test(above);
}

/** The input row: the last `› …` row near the bottom, above the model/footer lines. */
function inputRow(rows: string[]): number {
  const lines = trimTrailingBlank(rows);
  for (let i = lines.length - 1; i >= Math.max(0, lines.length - 8); i--) if (PROMPT.test(lines[i] ?? '')) return i;
  return -1;
}

/** The rows (trailing spaces off) and where this message's echo ends in them (0: not found). */
function afterEcho(lines: string[], userText: string): { rows: string[]; start: number } {
  const rows = lines.map((l) => l.replace(/\s+$/, ''));
  const start = afterLastEcho(
    rows,
    userText,
    (r) => PROMPT.test(r) && !PLACEHOLDER.test(r),
    (r) => r.replace(PROMPT, ''),
  );
  return { rows, start };
}

/** This message's turn ended: a `Worked for … •` row below the message's echo. */
function turnEnded(lines: string[], userText: string): boolean {
  const { rows, start } = afterEcho(lines, userText);
  return start > 0 && rows.slice(start).some((r) => /^\s*Worked for .*•/.test(r));
}

/**
 * Codex CLI (observed on 0.171.0): idle shows `› Ask Codex to do anything` with the model line
 * and `? for shortcuts` below; while working a `◦ Working (… esc to interrupt)` row appears, and
 * `? for shortcuts` stays visible, so it is no READY sign on its own.
 */
export const codexProfile: Profile = {
  id: 'codex',
  aliases: ['codex-cli'],
  usageLog: 'codex',
  displayName: 'Codex CLI',
  description: 'OpenAI Codex CLI wrapped by Synapse.',
  command: 'codex',
  // Codex's sandbox blocks network access by default; peers on 127.0.0.1 must be reachable.
  args: ['--no-daemon', '-c', 'sandbox_workspace_write.network_access=true'],
  // `-c` is taken many times; `--yolo` is the short name of the auto-approve flag (a flag passed
  // twice is an error to Codex: exit 2, "cannot be used multiple times").
  repeatableFlags: ['-c', '--config'],
  flagAliases: [['--dangerously-bypass-approvals-and-sandbox', '--yolo']],
  env: {},
  // 0.171.0 starts its TUI with CI=true and the other CI variables; TERM=dumb (which it refuses)
  // is replaced for every CLI.
  dropEnv: [],
  ports: PORT_RANGES.codex,
  resumeFlags: ['resume'],
  permission: { question: /Would you like to run the following command\?|Would you like to make the following edits\?/, select: 'digit' },
  autoApproveArgs: ['--dangerously-bypass-approvals-and-sandbox'],
  submit: { bracketedPaste: true, key: '\r', delayMs: 50, confirmMs: 3000 },
  interrupt: { kind: 'key', key: '\x1b' },
  clearInputKey: '\x15',
  status: {
    waiting: [{ patterns: [/Would you like to (run the following command|make the following edits)\?/] }],
    processing: [
      { patterns: [WORKING], lastRows: 12 },
      { patterns: [], match: streaming },
    ],
    ready: [{ patterns: [], match: (rows) => inputRow(rows) >= 0 }],
    quietReadyMs: null,
  },
  inputText(view) {
    const lines = trimTrailingBlank(view.lines);
    const i = inputRow(lines);
    if (i < 0) return null;
    const row = lines[i] ?? '';
    return PLACEHOLDER.test(row) ? '' : row.replace(PROMPT, '').trim();
  },
  // `Worked for 1s •` under this message's echo ends the turn at once.
  turn: screenTurns({ idleConfirmMs: 500, ended: turnEnded }),
  cleanOutput(lines: string[], userText: string): string {
    const { rows, start } = afterEcho(lines, userText);
    const out: string[] = [];
    let inTool = false;
    for (const line of rows.slice(start)) {
      if (PROMPT.test(line) || CHROME.test(line) || APPROVAL.test(line) || WORKING.test(line)) continue;
      if (TOOL.test(line)) {
        inTool = true;
        continue;
      }
      if (inTool && /^\s+/.test(line)) continue;
      inTool = false;
      out.push(line.replace(BULLET, '').replace(/^ {2}/, ''));
    }
    return trimBlankEdges(out.map((l) => l.trimEnd())).join('\n');
  },
};
