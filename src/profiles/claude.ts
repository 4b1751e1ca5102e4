import { PORT_RANGES } from './ports.js';
import { afterLastEcho, trimBlankEdges } from './text.js';
import { screenTurns } from './turns.js';
import type { Profile } from './types.js';

const RULE = /^─{10,}/;
const PROMPT = /^❯(\s|$)/;
const FOOTER = /\? for shortcuts|bypass permissions on|esc to interrupt|accept edits on|plan mode on|shift\+tab to cycle/;
const SPINNER = /^[·✢✳✶✻✽*]\s+\S.*(…|\(esc to interrupt|Worked for|Cooked for|Churned for|Baked for|for \d+s)/;
const RESPONSE_MARK = /^[⏺●]\s?/;
/** `● Bash(ls)`: a tool call row. */
const TOOL_CALL = /^[⏺●]\s+[A-Za-z][\w.-]*\(.*\)?\s*$/;
const TIP = /^\s+⎿\s+Tip:/;
/** How Claude Code echoes a long paste. */
const FOLDED_PASTE = /^❯\s+\[Pasted text #\d+/;
/** After every turn: the spinner glyph, a past tense and the time ("✻ Brewed for 0s", "✻ Worked for 1m 3s"). */
const TURN_END = /^[·✢✳✶✻✽*]\s+\S+ for \d+(\.\d+)?[smh]\b/;
/** The spinner row while working: a glyph, a gerund and an ellipsis ("✽ Ruminating…"). */
const WORKING = /^[·✢✳✶✻✽*]\s+\S+…/;

/** Plan mode's approval question: "Claude has written up a plan and is ready to execute. Would you like to proceed?" */
const PLAN_QUESTION = /ready to execute\. Would you like|Would you like to proceed\?/;

/** The input box: a `❯` row directly below a rule, with a rule further down. */
function inputBoxRow(rows: string[]): number {
  for (let i = rows.length - 1; i > 0; i--) {
    if (PROMPT.test(rows[i] ?? '') && RULE.test(rows[i - 1] ?? '') && rows.slice(i + 1).some((r) => RULE.test(r))) return i;
  }
  return -1;
}

/** This message's turn ended: its `✻ <Verb> for <time>` row below the message's echo. */
function turnEnded(lines: string[], userText: string): boolean {
  const rows = lines.map((l) => l.replace(/\s+$/, ''));
  let start = afterLastEcho(rows, userText, (r) => /^[>❯]\s/.test(r));
  // A long paste is echoed folded ("❯ [Pasted text #1 +12 lines]"): the last such row then.
  if (start === 0) start = rows.findLastIndex((r) => FOLDED_PASTE.test(r)) + 1;
  return start > 0 && rows.slice(start).some((r) => TURN_END.test(r));
}

/**
 * Claude Code (observed on 2.1.197): the idle prompt is a `❯ ` line between two `────` rules
 * with `? for shortcuts` below; while working, the footer says `esc to interrupt`.
 */
export const claudeProfile: Profile = {
  id: 'claude',
  aliases: ['claude-code'],
  usageLog: 'claude',
  displayName: 'Claude Code',
  description: 'Anthropic Claude Code CLI wrapped by Synapse.',
  command: 'claude',
  args: [],
  env: {},
  // Set by a Claude Code session for the commands it runs (an agent that starts an agent): the new
  // CLI would take itself for a child of that session. Claude Code clears the same three when it
  // starts a fresh session itself (2.1.197). CI does not change its TUI.
  dropEnv: ['CLAUDECODE', 'CLAUDE_CODE_SESSION_ID', 'CLAUDE_CODE_CHILD_SESSION'],
  ports: PORT_RANGES.claude,
  resumeFlags: ['--resume', '--continue', '-r', '-c'],
  permission: { question: /Do you want to (proceed|make this edit|create|allow)|Do you trust the files in this folder/, select: 'digit' },
  // Plan mode's approval screen (2.1.197, test/fixtures/screens/claude/2.1.197/waiting/plan-approval.txt):
  // `1. Yes, and use auto mode / 2. Yes, manually approve edits / 3. Tell Claude what to change`.
  // Approve is 2 (a peer's approval does not also switch off the edit prompts); 3 only selects the
  // feedback field, and Enter on it empty rejects: Enter goes once `❯ 3.` shows (sent 40 ms after
  // the 3, it was once taken before the selection moved and picked 1, "use auto mode").
  // The question row wraps in a narrow terminal ("… ready to execute. Would you like to" / "proceed?").
  plan: {
    question: PLAN_QUESTION,
    heading: /Here is Claude's plan:/,
    approveKeys: ['2'],
    rejectKeys: ['3'],
    rejectConfirm: { selected: /^\s*❯\s*3\.\s*Tell Claude/, key: '\r' },
  },
  autoApproveArgs: ['--dangerously-skip-permissions'],
  // A CR in the same write as the paste is taken as part of it; 50 ms apart always submits.
  submit: { bracketedPaste: true, key: '\r', delayMs: 50, confirmMs: 3000 },
  // Esc puts the interrupted prompt back in the box, drawn a moment after the idle frame: wait
  // for it, so the next delivery sees it (and clears it; it clears after any interrupt anyway).
  interrupt: { kind: 'key', key: '\x1b', settleMs: 300 },
  clearInputKey: '\x15',
  status: {
    waiting: [
      { patterns: [/Do you want to (proceed|make this edit|create|allow)/] },
      // The plan screen, whatever choice is selected (a long plan pushes its heading off the screen).
      { patterns: [PLAN_QUESTION], lastRows: 12 },
      { patterns: [/❯\s*1\.\s*Yes/] },
      { patterns: [/Detected a custom API key/] },
      { patterns: [/Yes, I accept/] },
      { patterns: [/Do you trust the files in this folder/] },
    ],
    processing: [
      { patterns: [/esc to interrupt/], lastRows: 6 },
      // Typing into the box hides the footer, but the spinner row above the box stays.
      { patterns: [WORKING], lastRows: 14 },
    ],
    ready: [{ patterns: [], match: (rows) => inputBoxRow(rows) >= 0 }],
    quietReadyMs: null,
  },
  inputText(view) {
    const rows = view.lines;
    const i = inputBoxRow(rows);
    if (i < 0) return null;
    // The prompt row and any continuation rows up to the closing rule.
    const text: string[] = [];
    for (let j = i; j < rows.length && !RULE.test(rows[j] ?? ''); j++) text.push((rows[j] ?? '').replace(PROMPT, ''));
    return text
      .join('\n')
      .replace(/\u00a0/g, ' ')
      .trim();
  },
  // `✻ Worked for 3s` under this message's echo ends the turn at once.
  turn: screenTurns({ idleConfirmMs: 500, ended: turnEnded }),
  cleanOutput(lines: string[], userText: string): string {
    const rows = lines.map((l) => l.replace(/\s+$/, ''));
    // Start after the last echo of the user's message (and its wrapped rows).
    let start = afterLastEcho(rows, userText, (r) => /^[>❯]\s/.test(r));
    if (start > 0) while (start < rows.length && (rows[start] ?? '').trim() !== '' && !RESPONSE_MARK.test(rows[start] ?? '')) start++;
    const out: string[] = [];
    let inputBox = false;
    let inTool = false;
    for (const line of rows.slice(start)) {
      if (RULE.test(line)) {
        inputBox = !inputBox;
        continue;
      }
      if (inputBox || PROMPT.test(line) || FOOTER.test(line) || SPINNER.test(line) || TIP.test(line)) continue;
      if (TOOL_CALL.test(line)) {
        inTool = true; // a tool call and its result rows (⎿ …) are not the answer
        continue;
      }
      if (inTool && (line.startsWith('  ') || line.trim() === '')) {
        if (line.trim() === '') inTool = false;
        continue;
      }
      inTool = false;
      out.push(line.replace(RESPONSE_MARK, '').replace(/^ {2}/, ''));
    }
    return trimBlankEdges(out).join('\n');
  },
};
