import fs from 'node:fs';
import path from 'node:path';
import { peerTls, transportFor, type PeerTls } from '../a2a/peer-tls.js';
import { numberSetting } from '../config/env-number.js';
import { envSetting } from '../config/env-setting.js';
import { apiKeyHeaders } from '../config/auth-keys.js';
import { agentStateDir } from '../config/paths.js';
import { openConversation, type Conversation, type ConversationRequest } from './echo-conversation.js';

/**
 * The built-in echo agent: a tiny program that behaves like an agent CLI, so Synapse can be
 * shown and tested without API keys. It draws an idle prompt, shows a spinner line with
 * "esc to interrupt" while it "thinks", then prints `ECHO: <text>`.
 *
 * Options (flags or env): --think MS (ECHO_THINK_MS, default 300), --startup MS
 * (ECHO_STARTUP_MS, delay before the first prompt), --swallow (ECHO_SWALLOW=1: accept input
 * but never show or answer it), --no-reply (ECHO_AUTO_REPLY=0: never answer [REPLY EXPECTED]
 * messages through the reply route, like an agent that forgets to reply), --exit-at-start CODE
 * (ECHO_EXIT_AT_START: print why and exit with CODE before the first prompt, like a CLI that
 * refuses to start), ECHO_BANNER_LINES N (print N numbered lines at start-up: a long history,
 * for tests of a full scrollback). Conversations (echo-conversation.ts): --session-id ID records
 * every message in `<ECHO_SESSION_DIR>/<ID>.json`; --resume [ID] and --continue go on with an
 * earlier one (the last one without an ID) and say so at start; ECHO_RESUME_HANG=1 makes a resume
 * hang before the first prompt (a CLI whose resume never comes up). Directives inside a message: [[wait: SECONDS]] thinks that long; [[exit:
 * CODE]] exits mid-turn; [[quiet]] ends the turn without printing anything and without a reply
 * (an agent that forgets both: the sender gets MISSING_REPLY); [[ask: CMD]] first shows a
 * permission menu (like the real CLIs' approval dialogs: arrows move, Enter picks, ESC denies);
 * [[history]] answers with the earlier messages of the conversation. [[usage: IN OUT CACHE_READ
 * CACHE_WRITE]] records that many tokens for the answer, as Claude Code does (one `assistant` line
 * with `message.usage` in `<ECHO_SESSION_DIR>/<ID>.usage.jsonl`), written as the answer ends.
 * [[plan: TEXT]] first shows a plan-approval screen with TEXT as the plan (like Claude Code's plan
 * mode: `Here is the plan:`, the plan between two rules, `Would you like to proceed?`, then
 * `1. Yes, proceed` / `2. No, keep planning`): 1 approves (the turn goes on and answers), 2 or ESC
 * rejects (the turn ends with `plan rejected` and no answer).
 */
const PROMPT = 'echo> ';
const CONT = ' '.repeat(PROMPT.length);
const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const PASTE_START = '\x1b[200~';
const PASTE_END = '\x1b[201~';

interface Options {
  thinkMs: number;
  startupMs: number;
  swallow: boolean;
  /** Answer [REPLY EXPECTED] messages through the agent's reply route, as a good agent would. */
  autoReply: boolean;
  /** The wrapping agent's port (`SYNAPSE_PORT`, set by Synapse); without it there is no reply route. */
  port: number | undefined;
  /** The API key header for its own agent (`synapse reply` would send the same). */
  keyHeaders: Record<string, string>;
  /** The agent serves over TLS (`SYNAPSE_USE_HTTPS`), and what its certificate is checked against. */
  https: { tls: PeerTls | undefined } | null;
  /** Exit with this code instead of showing the first prompt. */
  exitAtStart: number | undefined;
  /** Numbered lines printed at start-up, before the first prompt. */
  bannerLines: number;
  /** The conversation to record into or go on with; null records nothing. */
  conversation: ConversationRequest | null;
  /** Where conversations are kept (`ECHO_SESSION_DIR`, default `<state dir>/echo-sessions`). */
  sessionDir: string;
  /** A resume never shows the first prompt (`ECHO_RESUME_HANG=1`). */
  resumeHangs: boolean;
}

/** What `synapse reply` does, without starting a process: POST the answer to our own agent. */
async function autoReply(port: number, https: Options['https'], text: string, keyHeaders: Record<string, string>): Promise<void> {
  const body = JSON.stringify({ text });
  const url = `${https ? 'https' : 'http'}://127.0.0.1:${port}/reply`;
  const { request, options } = await transportFor(url, https?.tls);
  const headers = { ...keyHeaders, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) };
  const req = request(url, { ...options, method: 'POST', headers }, (res) => res.resume());
  req.on('error', () => undefined);
  req.end(body);
}

function parseOptions(argv: string[], env: NodeJS.ProcessEnv): Options {
  const opts: Options = {
    thinkMs: numberSetting(env, 'ECHO_THINK_MS', { default: 300, min: 0, unit: 'milliseconds' }),
    startupMs: numberSetting(env, 'ECHO_STARTUP_MS', { default: 0, min: 0, unit: 'milliseconds' }),
    swallow: env.ECHO_SWALLOW === '1',
    autoReply: env.ECHO_AUTO_REPLY !== '0',
    port: envSetting(env, 'SYNAPSE_PORT'),
    keyHeaders: apiKeyHeaders(env),
    https: envSetting(env, 'SYNAPSE_USE_HTTPS') ? { tls: peerTls(env) } : null,
    exitAtStart: numberSetting(env, 'ECHO_EXIT_AT_START', { integer: true, min: 0, max: 255 }),
    bannerLines: numberSetting(env, 'ECHO_BANNER_LINES', { default: 0, integer: true, min: 0, max: 1_000_000 }),
    conversation: null,
    sessionDir: env.ECHO_SESSION_DIR || `${agentStateDir(env)}/echo-sessions`,
    resumeHangs: env.ECHO_RESUME_HANG === '1',
  };
  const value = (i: number) => {
    const next = argv[i + 1];
    return next !== undefined && !next.startsWith('-') ? next : null;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--think') opts.thinkMs = Number(argv[++i]);
    else if (a === '--startup') opts.startupMs = Number(argv[++i]);
    else if (a === '--swallow') opts.swallow = true;
    else if (a === '--no-reply') opts.autoReply = false;
    else if (a === '--exit-at-start') opts.exitAtStart = Number(argv[++i]);
    else if (a === '--session-id' && value(i)) opts.conversation = { kind: 'new', id: argv[++i]! };
    else if (a === '--resume') {
      const id = value(i);
      if (id) i++;
      opts.conversation = { kind: 'resume', id };
    } else if (a === '--continue') opts.conversation = { kind: 'resume', id: null };
  }
  // A flag's bad value falls back to the default (the variables above are refused instead).
  if (!Number.isFinite(opts.thinkMs) || opts.thinkMs < 0) opts.thinkMs = 300;
  if (!Number.isFinite(opts.startupMs) || opts.startupMs < 0) opts.startupMs = 0;
  return opts;
}

class EchoAgent {
  private buffer = '';
  private inPaste = false;
  private thinking: { timer: NodeJS.Timeout; spin: NodeJS.Timeout } | null = null;
  private ready = false;
  private dialog: { command: string; selected: number; resolve: (allowed: boolean) => void } | null = null;
  private conversation: Conversation | null = null;
  private planDialog: { rows: number; resolve: (approved: boolean) => void } | null = null;

  constructor(
    private readonly opts: Options,
    private readonly out: NodeJS.WriteStream,
  ) {}

  start(): void {
    this.write('\x1b[?2004h'); // we understand bracketed paste
    this.write('Echo agent — built into Synapse. Type a message and press Enter.\r\n');
    if (this.opts.bannerLines > 0) this.write(Array.from({ length: this.opts.bannerLines }, (_, i) => `history line ${i + 1}\r\n`).join(''));
    const asked = this.opts.conversation;
    if (asked) {
      const opened = openConversation(this.opts.sessionDir, asked);
      if (opened === null) this.write('No earlier conversation to resume; starting a new one.\r\n');
      else if ('error' in opened) {
        this.write(`${opened.error}\r\n`);
        process.exit(1);
      } else {
        this.conversation = opened;
        if (asked.kind === 'resume' && this.opts.resumeHangs) {
          this.write(`Resuming conversation ${opened.id}…\r\n`);
          return; // never comes up: the prompt is never drawn
        }
        if (asked.kind === 'resume') this.write(`Resumed conversation ${opened.id}: ${opened.messages.length} earlier message(s).\r\n`);
      }
    }
    setTimeout(() => {
      const code = this.opts.exitAtStart;
      if (code !== undefined && Number.isInteger(code)) {
        this.write(`Cannot start: asked to exit at start-up with code ${code}.\r\n`);
        process.exit(code);
      }
      this.ready = true;
      this.drawPrompt();
    }, this.opts.startupMs);
  }

  onInput(chunk: string): void {
    if (this.opts.swallow) return;
    if (this.dialog) {
      this.onDialogKey(chunk);
      return;
    }
    if (this.planDialog) {
      this.onPlanKey(chunk);
      return;
    }
    // A lone ESC (its own write) is the interrupt key; sequences are parsed below.
    if (chunk === '\x1b') {
      if (this.thinking) this.interrupt();
      return;
    }
    let rest = chunk;
    while (rest.length > 0) {
      if (this.inPaste) {
        const end = rest.indexOf(PASTE_END);
        const text = end === -1 ? rest : rest.slice(0, end);
        this.addText(text.replace(/\r\n?/g, '\n'));
        if (end === -1) return;
        this.inPaste = false;
        rest = rest.slice(end + PASTE_END.length);
        continue;
      }
      if (rest.startsWith(PASTE_START)) {
        this.inPaste = true;
        rest = rest.slice(PASTE_START.length);
        continue;
      }
      if (rest.startsWith('\x1b')) {
        // Other escape sequences (arrows, focus events) are ignored: CSI ... final byte.
        const m = /^\x1b(\[[0-9;?]*[ -/]*[@-~]|O.|.)?/s.exec(rest);
        rest = rest.slice(m?.[0].length ?? 1);
        continue;
      }
      const ch = rest[0]!;
      rest = rest.slice(1);
      this.onKey(ch);
    }
  }

  private onKey(ch: string): void {
    if (ch === '\x03') {
      if (this.thinking) this.interrupt();
      else {
        this.buffer = '';
        this.write('^C\r\n');
        this.drawPrompt();
      }
      return;
    }
    if (ch === '\x15') {
      // Ctrl-U clears the input line, as in the real CLIs.
      this.buffer = '';
      if (!this.thinking && this.ready) this.write(`\r\x1b[2K${PROMPT}`);
      return;
    }
    if (ch === '\x04' && !this.thinking && this.buffer === '') {
      this.write('\r\nbye\r\n');
      process.exit(0);
    }
    if (ch === '\r' || ch === '\n') {
      if (!this.thinking && this.ready) this.submit();
      return;
    }
    if (ch === '\x7f' || ch === '\b') {
      if (this.buffer.length > 0) {
        this.buffer = this.buffer.slice(0, -1);
        if (!this.thinking && this.ready) this.write('\b \b');
      }
      return;
    }
    if (ch < ' ' && ch !== '\t') return;
    this.addText(ch);
  }

  private addText(text: string): void {
    this.buffer += text;
    if (!this.thinking && this.ready) this.write(text.replace(/\n/g, `\r\n${CONT}`));
  }

  private drawPrompt(): void {
    this.write(`${PROMPT}${this.buffer.replace(/\n/g, `\r\n${CONT}`)}`);
  }

  /** `[[ask: CMD]]`: a permission menu like the real CLIs draw; arrows move, Enter picks. */
  private ask(command: string, then: (allowed: boolean) => void): void {
    this.dialog = { command, selected: 0, resolve: then };
    this.drawDialog(false);
  }

  private drawDialog(redraw: boolean): void {
    const d = this.dialog!;
    const labels = ['Yes', 'Yes, and always allow it', 'No'];
    const rows = [`Allow this? run: ${d.command}`, ...labels.map((l, i) => `${i === d.selected ? '❯' : ' '} ${i + 1}. ${l}`)];
    this.write(`${redraw ? '\x1b[3A\r' : ''}${rows.map((r) => `\x1b[2K${r}`).join('\r\n')}`);
  }

  private onDialogKey(chunk: string): void {
    const d = this.dialog!;
    if (chunk === '\x1b[A' || chunk === '\x1b[B') {
      d.selected = Math.min(2, Math.max(0, d.selected + (chunk === '\x1b[B' ? 1 : -1)));
      this.drawDialog(true);
      return;
    }
    if (/^[123]$/.test(chunk))
      d.selected = Number(chunk) - 1; // a digit picks that choice at once
    else if (chunk !== '\r' && chunk !== '\x1b') return;
    const allowed = chunk !== '\x1b' && d.selected !== 2;
    this.dialog = null;
    // Replace the menu with one line saying what happened.
    this.write(`\x1b[3A\r\x1b[J${allowed ? 'allowed' : 'denied'}: ${d.command}\r\n`);
    d.resolve(allowed);
  }

  /** `[[plan: TEXT]]`: a plan-approval screen like Claude Code's plan mode; 1 approves, 2 or ESC rejects. */
  private askPlan(plan: string, then: (approved: boolean) => void): void {
    const rule = '─'.repeat(40);
    const rows = [
      'Here is the plan:',
      rule,
      ...plan.split('\n').map((l) => ` ${l}`),
      rule,
      'Would you like to proceed?',
      '❯ 1. Yes, proceed',
      '  2. No, keep planning',
    ];
    this.planDialog = { rows: rows.length, resolve: then };
    this.write(rows.join('\r\n'));
  }

  private onPlanKey(chunk: string): void {
    const d = this.planDialog!;
    if (chunk !== '1' && chunk !== '2' && chunk !== '\x1b') return;
    const approved = chunk === '1';
    this.planDialog = null;
    // Replace the screen with one line saying what happened.
    this.write(`\x1b[${d.rows - 1}A\r\x1b[J${approved ? 'plan approved' : 'plan rejected'}\r\n`);
    d.resolve(approved);
  }

  private submit(): void {
    const text = this.buffer;
    this.buffer = '';
    this.write('\r\n');
    if (text.trim() === '') {
      this.drawPrompt();
      return;
    }
    const plan = /\[\[plan:\s*([\s\S]+?)\]\]/.exec(text);
    if (plan) {
      this.askPlan(plan[1]!, (approved) => {
        if (approved) this.answer(text.replace(plan[0], '(plan approved)'));
        else this.drawPrompt();
      });
      return;
    }
    const ask = /\[\[ask:\s*(.+?)\]\]/.exec(text);
    if (ask) {
      this.ask(ask[1]!, (allowed) => {
        this.answer(text.replace(ask[0], allowed ? '(allowed)' : '(denied)'));
      });
      return;
    }
    this.answer(text);
  }

  /** `[[history]]`: the conversation's earlier messages, one line each. */
  private historyText(): string {
    const earlier = this.conversation?.messages ?? [];
    const rows = earlier.map((m, i) => `  ${i + 1}. ${m.replace(/\s+/g, ' ').slice(0, 200)}`);
    return [`HISTORY: ${earlier.length} earlier message(s)${this.conversation ? ` in conversation ${this.conversation.id}` : ''}`, ...rows].join('\n');
  }

  private answer(text: string): void {
    const exit = /\[\[exit:\s*(\d+)\]\]/.exec(text);
    const quiet = text.includes('[[quiet]]');
    const wait = /\[\[wait:\s*([\d.]+)\]\]/.exec(text);
    const thinkMs = wait ? Number(wait[1]) * 1000 : this.opts.thinkMs;
    const reply = text.includes('[[history]]') ? this.historyText() : `ECHO: ${text}`;
    this.conversation?.record(text);
    // The answer streams in line by line while the spinner runs, like a model's tokens.
    const lines = quiet ? [''] : reply.split('\n');
    let shown = 0;
    let frame = 0;
    const started = Date.now();
    const drawSpinner = () => {
      const due = thinkMs > 0 ? Math.floor(((Date.now() - started) / thinkMs) * lines.length) : 0;
      let out = '';
      while (shown < Math.min(due, lines.length - 1)) out += `\r\x1b[2K${lines[shown++]}\r\n`;
      this.write(`${out}\r\x1b[2K${SPINNER[frame++ % SPINNER.length]} Thinking… (esc to interrupt)`);
    };
    if (thinkMs > 0) drawSpinner();
    const spin = setInterval(drawSpinner, 80);
    const timer = setTimeout(() => {
      clearInterval(spin);
      this.thinking = null;
      if (exit) {
        this.write('\r\x1b[2Kexiting as asked\r\n');
        process.exit(Number(exit[1]));
      }
      if (quiet) {
        this.write('\r\x1b[2K');
        this.drawPrompt();
        return;
      }
      this.write(`\r\x1b[2K${lines.slice(shown).join('\r\n')}\r\n`);
      this.recordUsage(text);
      this.drawPrompt();
      if (this.opts.autoReply && this.opts.port !== undefined && text.includes('[REPLY EXPECTED]'))
        void autoReply(this.opts.port, this.opts.https, reply, this.opts.keyHeaders);
    }, thinkMs);
    this.thinking = { timer, spin };
  }

  /** `[[usage: IN OUT CR CW]]`: one usage record in Claude Code's session format. */
  private recordUsage(text: string): void {
    const m = /\[\[usage:\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*\]\]/.exec(text);
    if (!m) return;
    const [input, output, cacheRead, cacheWrite] = m.slice(1).map(Number) as [number, number, number, number];
    const id = this.conversation?.id ?? 'no-session';
    const line = {
      type: 'assistant',
      sessionId: id,
      timestamp: new Date().toISOString(),
      message: {
        id: `msg_echo_${Date.now()}_${Math.random().toString(36).slice(2, 8)}`,
        model: 'echo',
        role: 'assistant',
        usage: { input_tokens: input, output_tokens: output, cache_read_input_tokens: cacheRead, cache_creation_input_tokens: cacheWrite },
      },
    };
    try {
      fs.mkdirSync(this.opts.sessionDir, { recursive: true, mode: 0o700 });
      fs.appendFileSync(path.join(this.opts.sessionDir, `${id}.usage.jsonl`), `${JSON.stringify(line)}\n`, { mode: 0o600 });
    } catch {
      // like a CLI that cannot write its session file: the answer stands
    }
  }

  private interrupt(): void {
    if (!this.thinking) return;
    clearTimeout(this.thinking.timer);
    clearInterval(this.thinking.spin);
    this.thinking = null;
    this.write('\r\x1b[2KInterrupted.\r\n');
    this.drawPrompt();
  }

  private write(s: string): void {
    this.out.write(s);
  }
}

const agent = new EchoAgent(parseOptions(process.argv.slice(2), process.env), process.stdout);
if (process.stdin.isTTY) process.stdin.setRawMode(true);
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk: string) => agent.onInput(chunk));
process.stdin.on('end', () => process.exit(0));
process.on('SIGINT', () => agent.onInput('\x03'));
process.on('SIGHUP', () => process.exit(0));
agent.start();
