import { PORT_RANGES } from './ports.js';
import { squash, trimBlankEdges } from './text.js';
import type { Profile } from './types.js';

const RULE = /^─{10,}/;
const PROMPT = /^❯(\s|$)/;
const FOOTER = /\? for shortcuts|bypass permissions on|esc to interrupt|accept edits on|plan mode on|shift\+tab to cycle/;
const SPINNER = /^[·✢✳✶✻✽*]\s+\S.*(…|\(esc to interrupt|Worked for|Cooked for|Churned for|Baked for|for \d+s)/;
const RESPONSE_MARK = /^⏺\s?/;

/**
 * Claude Code (observed on 2.1.197): the idle prompt is a `❯ ` line between two `────` rules
 * with `? for shortcuts` below; while working, the footer says `esc to interrupt`.
 */
export const claudeProfile: Profile = {
  id: 'claude',
  aliases: ['claude-code'],
  displayName: 'Claude Code',
  description: 'Anthropic Claude Code CLI wrapped by Synapse.',
  command: 'claude',
  args: [],
  env: {},
  ports: PORT_RANGES.claude,
  resumeFlags: ['--resume', '--continue', '-r', '-c'],
  // A CR in the same write as the paste is taken as part of it; 50 ms apart always submits.
  submit: { bracketedPaste: true, key: '\r', delayMs: 50, confirmMs: 3000 },
  interrupt: { kind: 'key', key: '\x1b' },
  status: {
    waiting: [
      { patterns: [/Do you want to (proceed|make this edit|create|allow)/] },
      { patterns: [/❯\s*1\.\s*Yes/] },
      { patterns: [/Detected a custom API key/] },
      { patterns: [/Yes, I accept/] },
      { patterns: [/Do you trust the files in this folder/] },
    ],
    processing: [{ patterns: [/esc to interrupt/], lastRows: 6 }],
    ready: [{ patterns: [PROMPT, RULE, /\? for shortcuts|bypass permissions on|accept edits on|plan mode on/] }],
    quietReadyMs: null,
  },
  inputText(view) {
    // The prompt row between the last two rules; continuation rows of a multi-line input follow it.
    const rows = view.lines;
    for (let i = rows.length - 1; i >= 0; i--) {
      const row = rows[i] ?? '';
      if (PROMPT.test(row) && RULE.test(rows[i - 1] ?? '')) return row.replace(PROMPT, '').replace(/\u00a0/g, ' ').trim();
    }
    return null;
  },
  idleConfirmMs: 500,
  cleanOutput(lines: string[], userText: string): string {
    const user = squash(userText);
    const out: string[] = [];
    let inputBox = false;
    for (const raw of lines) {
      const line = raw.replace(/\s+$/, '');
      if (RULE.test(line)) {
        inputBox = !inputBox;
        continue;
      }
      if (inputBox || PROMPT.test(line)) continue;
      if (FOOTER.test(line) || SPINNER.test(line)) continue;
      // The echoed user message (`> text` / `❯ text`) is not part of the answer.
      if (/^[>❯]\s/.test(line) && user.includes(squash(line))) continue;
      out.push(line.replace(RESPONSE_MARK, '').replace(/^ {2}/, ''));
    }
    return trimBlankEdges(out).join('\n');
  },
};
