import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { followSse } from '../../a2a/sse-client.js';
import { peerTls } from '../../a2a/peer-tls.js';
import { parseDoneEvent, peerTaskText, type PeerTask } from '../../a2a/wire-client.js';
import { apiKeyHeaders } from '../../config/auth-keys.js';
import { synapseHome } from '../../config/paths.js';
import { SynapseError } from '../../errors.js';
import type { RegistryEntry } from '../../registry/entry.js';
import { liveAgents } from '../../registry/lookup.js';
import { sameWorkingDir } from '../../registry/project.js';
import { sanitizePeerText } from '../../runtime/sanitize.js';
import { resolveSender } from '../../registry/sender.js';
import type { CommandIo } from '../io.js';
import { deliverMessage, parseTimeoutMs } from './send.js';
import { completeShellLine, parseShellLine } from './shell-line.js';

export interface ShellFlags {
  to?: string;
  timeout?: string;
  from?: string;
}

const HISTORY_SIZE = 500;
const DEFAULT_TIMEOUT_S = '600';

const HELP = `  @<agent> <message>        send and show the answer when it arrives (name, id, type-port or type)
  @<a>,<b> <message>        the same to several agents at once
  @all <message>            every other agent in this project
  <message>                 to the default target (/to), else refused
  /to <agent>  /to          set the default target; without a name, clear it
  /list                     the agents you can address
  /help  exit  (Ctrl-D)     this help; quit (waits for answers still coming)
  Ctrl-C                    stop waiting for the answers still coming (the tasks go on)
`;

/** Peer text is data: its control bytes never reach the terminal (tab and newline stay). */
const clean = sanitizePeerText;
const labelOf = (e: RegistryEntry) => clean(e.name ?? e.agent_id);

/**
 * `synapse shell`: an interactive prompt where `@codex review this` sends to codex and prints the
 * answer when it arrives, while the prompt stays usable. Piped input works too (one line per
 * message; the shell waits for every answer before it exits), which is how scripts and tests
 * use it.
 */
export async function shellCommand(flags: ShellFlags, io: CommandIo): Promise<void> {
  await new ShellSession(flags, io).run();
}

class ShellSession {
  private readonly tty: boolean;
  private readonly timeoutMs: number | null;
  private defaultTarget: string | null;
  private readonly historyFile: string;
  private readonly pending = new Set<Promise<void>>();
  private readonly waits = new Set<AbortController>();
  private readonly rl: readline.Interface;

  constructor(
    private readonly flags: ShellFlags,
    private readonly io: CommandIo,
  ) {
    this.tty = io.isTerminal('stdin') && io.isTerminal('stdout');
    this.timeoutMs = parseTimeoutMs(flags.timeout ?? DEFAULT_TIMEOUT_S);
    this.defaultTarget = flags.to ?? null;
    this.historyFile = path.join(synapseHome(io.env), 'shell_history');
    this.rl = readline.createInterface({
      input: process.stdin,
      output: process.stdout,
      terminal: this.tty,
      historySize: HISTORY_SIZE,
      history: this.tty ? readHistory(this.historyFile) : [],
      completer: (line: string) => completeShellLine(line, addressableNames(io)),
    });
  }

  async run(): Promise<void> {
    if (this.tty) this.io.out('Synapse shell: @<agent> <message> sends and shows the answer. /help for more, exit or Ctrl-D to quit.\n');
    let interrupts = 0;
    this.rl.on('SIGINT', () => {
      if (this.waits.size > 0) {
        for (const w of this.waits) w.abort();
        return;
      }
      this.rl.write(null, { ctrl: true, name: 'u' });
      if (++interrupts >= 2) this.rl.close();
      else this.print('(Ctrl-C again, exit or Ctrl-D to quit)');
    });
    this.prompt();
    await new Promise<void>((resolve) => {
      this.rl.on('line', (raw) => {
        interrupts = 0;
        if (this.handle(raw) === 'exit') this.rl.close();
        else this.prompt();
      });
      this.rl.on('close', () => resolve());
    });
    if (this.tty) writeHistory(this.historyFile, (this.rl as unknown as { history: string[] }).history);
    // Input ended (Ctrl-D, exit, or the end of a pipe): the answers still coming are shown first.
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  private prompt(): void {
    if (!this.tty) return;
    this.rl.setPrompt(this.defaultTarget ? `synapse(${clean(this.defaultTarget)})> ` : 'synapse> ');
    this.rl.prompt(true);
  }

  /** A line printed above the prompt without breaking what the user is typing. */
  private print(text: string): void {
    if (this.tty) {
      readline.clearLine(process.stdout, 0);
      readline.cursorTo(process.stdout, 0);
    }
    this.io.out(text.endsWith('\n') ? text : `${text}\n`);
    if (this.tty) this.rl.prompt(true);
  }

  private handle(raw: string): 'exit' | void {
    const line = parseShellLine(raw);
    switch (line.kind) {
      case 'empty':
        return;
      case 'bad':
        return this.print(line.reason);
      case 'unknown-command':
        return this.print(`unknown command /${clean(line.name)}; /help lists them`);
      case 'plain':
        if (!this.defaultTarget) return this.print('no @agent: write @<agent> <message> (Tab completes names), or set a default with /to <agent>');
        return this.send(this.defaultTarget, line.text);
      case 'send': {
        const targets = line.targets === 'all' ? this.everyone() : line.targets;
        if (targets.length === 0) return this.print('@all: no other agent runs in this project');
        for (const t of targets) this.send(t, line.text);
        return;
      }
      case 'command':
        if (line.name === 'exit') return 'exit';
        if (line.name === 'help') return this.print(HELP);
        if (line.name === 'list') return this.print(agentList(this.io) || 'no agents are running');
        this.defaultTarget = line.arg;
        return this.print(this.defaultTarget ? `plain lines now go to ${clean(this.defaultTarget)}` : 'no default target: plain lines are refused');
    }
  }

  /** Every other live agent in this project (`@all`, as `broadcast`). */
  private everyone(): string[] {
    const live = liveAgents(this.io.env);
    const me = resolveSender(live, { env: this.io.env, pid: this.io.parentPid, ...(this.flags.from ? { from: this.flags.from } : {}) });
    const dir = me.entry?.working_dir ?? this.io.cwd;
    return live.filter((e) => e.agent_id !== me.id && sameWorkingDir(e.working_dir, dir)).map((e) => e.agent_id);
  }

  /** Sends in the background: the answer (or why there is none) is printed when it comes. */
  private send(targetArg: string, text: string): void {
    const controller = new AbortController();
    this.waits.add(controller);
    const from = this.flags.from ? { from: this.flags.from } : {};
    const run = (async () => {
      try {
        const d = await deliverMessage(targetArg, text, { priority: 3, mode: 'wait', timeoutMs: this.timeoutMs, follow: false, ...from }, this.io);
        const who = `[${labelOf(d.target)}]`;
        this.print(`${who} task ${d.task.id.slice(0, 8)} ${d.task.status}; waiting for the answer`);
        const done = await follow(d.target, d.task, controller.signal, this.timeoutMs, this.io);
        if (!done) this.print(`${who} stopped waiting; the task goes on (synapse history show ${d.task.id.slice(0, 8)})`);
        else if (done.status === 'completed') this.print(`${who} ${clean(peerTaskText(done))}`);
        else this.print(`${who} ${done.status}${done.error ? `: ${clean(done.error.message)}` : ''}`);
      } catch (err) {
        this.print(`[${clean(targetArg)}] ${err instanceof SynapseError ? `${err.code}: ` : ''}${clean((err as Error).message)}`);
      } finally {
        this.waits.delete(controller);
      }
    })();
    this.pending.add(run);
    void run.finally(() => this.pending.delete(run));
  }
}

/** Follows the task until it is done; null when the wait was stopped (Ctrl-C) or timed out. */
async function follow(target: RegistryEntry, task: PeerTask, signal: AbortSignal, timeoutMs: number | null, io: CommandIo): Promise<PeerTask | null> {
  const controller = new AbortController();
  const stop = () => controller.abort();
  signal.addEventListener('abort', stop, { once: true });
  const timer = timeoutMs ? setTimeout(stop, timeoutMs) : undefined;
  let finished: PeerTask | null = null;
  try {
    await followSse(
      `${target.endpoint}/tasks/${task.id}/subscribe`,
      (e) => {
        finished = parseDoneEvent(e.data, task.id);
        return finished !== null;
      },
      { signal: controller.signal, headers: apiKeyHeaders(io.env), tls: peerTls(io.env) },
    );
  } catch (err) {
    if (!controller.signal.aborted) throw err;
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', stop);
  }
  return finished;
}

function agentList(io: CommandIo): string {
  return liveAgents(io.env)
    .map((e) => `  ${clean(e.agent_id)}  ${clean(e.agent_type)}${e.name ? `  ${clean(e.name)}` : ''}  ${e.status}`)
    .join('\n');
}

/** What can follow `@`: every live agent's id, type and name (none when the registry cannot be read). */
function addressableNames(io: CommandIo): string[] {
  try {
    return liveAgents(io.env).flatMap((e) => [e.agent_id, e.agent_type, ...(e.name ? [e.name] : [])]);
  } catch {
    return [];
  }
}

function readHistory(file: string): string[] {
  try {
    // readline keeps the newest first.
    return fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).reverse().slice(0, HISTORY_SIZE);
  } catch {
    return [];
  }
}

function writeHistory(file: string, history: string[]): void {
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    fs.writeFileSync(file, `${[...history].reverse().join('\n')}\n`, { mode: 0o600 });
  } catch {
    // A history that cannot be saved is not worth an error at exit.
  }
}
