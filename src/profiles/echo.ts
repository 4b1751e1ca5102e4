import { fileURLToPath } from 'node:url';
import { PORT_RANGES } from './ports.js';
import { trimTrailingBlank } from './screen-rules.js';
import { trimBlankEdges } from './text.js';
import { screenTurns } from './turns.js';
import type { Profile } from './types.js';

const PROMPT = /^echo> /;
const CONTINUATION = /^ {6}/;
const SPINNER = /^[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] Thinking…/;

/** The built-in echo agent (src/demo/echo-agent.ts): no API key, same shape as a real CLI. */
export const echoProfile: Profile = {
  id: 'echo',
  aliases: ['dummy'],
  usageLog: 'echo',
  displayName: 'Echo agent',
  description: 'Built-in demo agent that echoes every message back (no API key needed).',
  command: process.execPath,
  // Small heaps keep the idle footprint of the demo agent low.
  args: ['--max-old-space-size=32', '--max-semi-space-size=1', fileURLToPath(new URL('../demo/echo-agent.js', import.meta.url))],
  env: {},
  dropEnv: [],
  ports: PORT_RANGES.echo,
  resumeFlags: ['--resume', '--continue'],
  permission: { question: /Allow this\?/, select: 'digit' },
  plan: { question: /^Would you like to proceed\?/, heading: /^Here is the plan:/, approveKeys: ['1'], rejectKeys: ['2'] },
  submit: { bracketedPaste: true, key: '\r', delayMs: 5, confirmMs: 1500 },
  interrupt: { kind: 'key', key: '\x1b' },
  clearInputKey: '\x15',
  status: {
    waiting: [{ patterns: [/^Allow this\?/] }, { patterns: [/^Would you like to proceed\?/] }],
    processing: [{ patterns: [/esc to interrupt/], lastRows: 2 }],
    ready: [{ patterns: [PROMPT], lastRows: 1 }],
    quietReadyMs: null,
  },
  inputText(view) {
    const last = trimTrailingBlank(view.lines).at(-1) ?? '';
    return PROMPT.test(last) ? last.slice('echo> '.length).trim() : null;
  },
  turn: screenTurns({ idleConfirmMs: 0 }),
  cleanOutput(lines: string[]): string {
    const out: string[] = [];
    let inEcho = false;
    for (const line of lines) {
      if (PROMPT.test(line)) {
        inEcho = true; // the echoed input (or the fresh idle prompt)
        continue;
      }
      if (inEcho && CONTINUATION.test(line)) continue;
      inEcho = false;
      if (SPINNER.test(line)) continue;
      out.push(line);
    }
    return trimBlankEdges(out).join('\n');
  },
};
