// Shared helpers for the e2e suite: the real agent CLIs (pinned in test/e2e/clis) run under
// `synapse <profile> --headless` (or in a tmux pane, foreground) against the offline mock model
// server, each in a throw-away HOME from test/support/cli-home.mjs.
//
// Every process a test starts is registered here and stopped by `cleanupE2E()` (call it from
// afterEach): the synapse agent's process group, then whatever of its process tree survived
// (the CLI runs in its own PTY session), tmux servers on private sockets, mock servers and temp
// dirs. `cleanupE2E()` fails the test when a process outlives it.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CLIS_DIR, prepareHome, type CliHome } from '../support/cli-home.mjs';
import {
  readAnthropicTurn,
  readChatTurn,
  readGeminiTurn,
  readResponsesTurn,
  startMockModelServer,
  type MockModelServer,
  type MockRequest,
} from '../support/mock-model-server.mjs';
import { BIN as REPO_BIN, freePort, getJson, postJson, textMessage, waitFor } from '../support/synapse.js';

export { getJson, postJson, waitFor };

/**
 * The synapse CLI under test: this checkout's `bin/synapse.js`, or `SYNAPSE_E2E_BIN` (e.g. another
 * checkout's build, to try a runtime change against the real CLIs before it lands).
 */
export const BIN = process.env.SYNAPSE_E2E_BIN ?? REPO_BIN;
export type { MockModelServer, MockRequest };

export type Cli = 'claude' | 'codex' | 'gemini' | 'opencode' | 'copilot';
const CLI_BIN_DIR = path.join(CLIS_DIR, 'node_modules', '.bin');

/** Deadlines: real CLIs start in 0.5–4 s, but two cores under a full suite can be slower. */
export const START_MS = 60_000;
export const TURN_MS = 45_000;

// --- cleanup --------------------------------------------------------------------------------

type Cleanup = { what: string; run: () => Promise<void> };
const cleanups: Cleanup[] = [];
/** Pids that must be gone once cleanup has run. */
const tracked = new Set<number>();

export function defer(what: string, run: () => Promise<void> | void): void {
  cleanups.push({ what, run: async () => run() });
}

// --- screen traces ----------------------------------------------------------------------------

/** Every agent records its readings and deliveries (SYNAPSE_SCREEN_TRACE); a failed test prints them. */
const traces: string[] = [];

/** In the agent's temp dir (gone with it), or kept in SYNAPSE_E2E_TRACE_DIR when that is set. */
function traceFile(cli: Cli, root: string): string {
  const dir = process.env.SYNAPSE_E2E_TRACE_DIR;
  const file = dir ? path.join(dir, `${cli}-${path.basename(root)}.jsonl`) : path.join(root, 'screen-trace.jsonl');
  traces.push(file);
  return file;
}

interface TraceRecord {
  ms: number;
  kind: string;
  status?: string;
  seq?: number;
  task?: string;
  output?: string;
  viewport?: string[];
}

/**
 * What the agents of the current test saw, for a failure message: status changes and delivery
 * steps with their times, and the screen at each finished task (blank rows dropped).
 */
export function traceSummary(): string {
  const parts: string[] = [];
  for (const file of traces) {
    let records: TraceRecord[];
    try {
      records = fs
        .readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as TraceRecord);
    } catch {
      continue;
    }
    const out = [`--- screen trace ${file} ---`];
    let status = '';
    for (const r of records) {
      if (r.kind === 'reading') {
        if (r.status !== status) out.push(`${r.ms} ms  ${r.status} (screen #${r.seq})`);
        status = r.status ?? '';
        continue;
      }
      out.push(`${r.ms} ms  ${r.kind} ${r.task ?? ''} (screen #${r.seq})${r.output !== undefined ? ` output ${JSON.stringify(r.output.slice(0, 200))}` : ''}`);
      if (r.viewport) out.push(...r.viewport.filter((l) => l.trim()).map((l) => `    | ${l}`));
    }
    // The screen as the agent last read it: where a task stuck, this is what it stuck on.
    const last = records.filter((r) => r.kind === 'reading' && r.viewport).at(-1);
    if (last?.viewport) out.push(`${last.ms} ms  last screen read (screen #${last.seq}):`, ...last.viewport.filter((l) => l.trim()).map((l) => `    | ${l}`));
    parts.push(out.join('\n'));
  }
  return parts.join('\n');
}

/** Stops everything registered since the last call (newest first) and checks no process survived. */
export async function cleanupE2E(): Promise<void> {
  const errors: string[] = [];
  for (const c of cleanups.splice(0).reverse()) {
    try {
      await c.run();
    } catch (err) {
      errors.push(`${c.what}: ${(err as Error).message}`);
    }
  }
  traces.length = 0;
  const survivors = [...tracked].filter(alive);
  for (const pid of survivors) kill(pid, 'SIGKILL');
  tracked.clear();
  if (survivors.length) errors.push(`processes outlived the test (killed now): ${survivors.map(describePid).join(', ')}`);
  if (errors.length) throw new Error(`e2e cleanup: ${errors.join('; ')}`);
}

// --- processes ------------------------------------------------------------------------------

function procStat(pid: number): { ppid: number; state: string } | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: f[0] ?? '?', ppid: Number(f[1]) };
  } catch {
    return null;
  }
}

/** Alive and not a zombie. */
function alive(pid: number): boolean {
  const s = procStat(pid);
  return s !== null && s.state !== 'Z' && s.state !== 'X';
}

function describePid(pid: number): string {
  try {
    return `${pid} (${fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim().slice(0, 80)})`;
  } catch {
    return String(pid);
  }
}

/** Every live descendant of `root` (read from /proc). */
function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const s = procStat(Number(name));
    if (!s) continue;
    const list = children.get(s.ppid) ?? [];
    list.push(Number(name));
    children.set(s.ppid, list);
  }
  const out: number[] = [];
  const todo = [root];
  while (todo.length) {
    for (const c of children.get(todo.pop()!) ?? []) {
      out.push(c);
      todo.push(c);
    }
  }
  return out;
}

function kill(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // gone already
  }
}

async function gone(pids: number[], ms: number): Promise<boolean> {
  return waitFor(() => pids.every((p) => !alive(p)), ms, 'processes to exit').then(
    () => true,
    () => false,
  );
}

/**
 * Stops a process tree: SIGTERM to the leader's group (synapse shuts its CLI down itself),
 * then SIGKILL to whatever of the tree is left after `graceMs`.
 */
async function stopTree(leader: number, graceMs = 8_000): Promise<void> {
  const tree = [leader, ...descendants(leader)];
  for (const p of tree) tracked.add(p);
  kill(-leader, 'SIGTERM');
  if (await gone([leader], graceMs)) {
    // The CLI and its children live in other process groups; they must be gone too.
    if (await gone(tree, 3_000)) return;
  }
  const left = [...new Set([...tree, ...tree.flatMap((p) => (alive(p) ? descendants(p) : []))])].filter(alive);
  kill(-leader, 'SIGKILL');
  for (const p of left) kill(p, 'SIGKILL');
  await gone(left, 3_000);
}

// --- mock model server ----------------------------------------------------------------------

export async function startMock(): Promise<MockModelServer> {
  const mock = await startMockModelServer();
  defer('mock model server', () => mock.close());
  return mock;
}

/** The human's text and the tool output of one model request, in the CLI's own wire format. */
export function turnOf(cli: Cli, req: MockRequest): { userText: string; toolOutput: string | null } {
  if (cli === 'claude') return readAnthropicTurn(req.body);
  if (cli === 'codex') return readResponsesTurn(req.body);
  if (cli === 'opencode' || cli === 'copilot') return readChatTurn(req.body);
  return readGeminiTurn(req.body);
}

/** Model turns only: text or tool answers (not title/router side calls, not HEAD /). */
export function modelTurns(mock: MockModelServer): MockRequest[] {
  return mock.requests.filter((r) => r.answer === 'text' || r.answer === 'tool');
}

export function userTexts(cli: Cli, mock: MockModelServer): string[] {
  return modelTurns(mock).map((r) => turnOf(cli, r).userText);
}

/**
 * The first model turn whose user text satisfies `pred` (waits for it). Polls the request log:
 * the mock classifies a request (`answer`) only after its waiters have seen it.
 */
export function waitForTurn(cli: Cli, mock: MockModelServer, pred: (userText: string, req: MockRequest) => boolean, ms = TURN_MS): Promise<MockRequest> {
  return waitFor(() => modelTurns(mock).find((r) => pred(turnOf(cli, r).userText, r)), ms, 'a matching model turn at the mock');
}

// --- agents ---------------------------------------------------------------------------------

interface LogEvent {
  at: number;
  msg: string;
}

export interface E2EAgent {
  cli: Cli;
  port: number;
  agentId: string;
  endpoint: string;
  home: CliHome;
  /** The environment synapse (and so the CLI) runs with. */
  env: Record<string, string>;
  child: ChildProcess;
  /** Everything the agent printed (its event log). */
  output(): string;
  /** The event log's lines (pino JSON: time, agent id, msg). */
  events(): LogEvent[];
  /** Agent status changes from the log: {at, from, to}. */
  statusChanges(): Array<{ at: number; from: string; to: string }>;
  stop(): Promise<void>;
}

export interface StartOptions {
  /** `synapse <cli> --auto-approve`: the CLI's own permission bypass (Claude also needs IS_SANDBOX=1 as root). */
  autoApprove?: boolean;
  /** Extra synapse flags before `--`. */
  flags?: string[];
  /** CLI args after `--`. */
  cliArgs?: string[];
  /** Extra env for synapse and the CLI. */
  env?: Record<string, string>;
  /** Share one registry between agents (agent-to-agent tests). */
  registryDir?: string;
  /** Wait until `ready_for_messages` (start-up instruction done). Default true. */
  waitReady?: boolean;
  /** Runs once the home and project exist, before synapse starts (e.g. `synapse mcp install`). */
  setup?: (home: CliHome, env: Record<string, string>) => Promise<void> | void;
}

/** The CLI's throw-away HOME plus the SYNAPSE_* dirs inside it and PATH to the pinned CLIs. */
export async function prepareAgentHome(
  cli: Cli,
  mock: MockModelServer,
  opts: Pick<StartOptions, 'autoApprove' | 'env' | 'registryDir'> = {},
): Promise<{ home: CliHome; env: Record<string, string> }> {
  const home =
    cli === 'claude'
      ? await prepareHome.claude({ baseUrl: mock.url, skipPermissions: opts.autoApprove === true })
      : await prepareHome[cli]({ baseUrl: mock.url });
  defer(`temp home ${home.root}`, () => home.cleanup());
  const h = home.home;
  const env: Record<string, string> = {
    ...home.env,
    PATH: `${CLI_BIN_DIR}${path.delimiter}${home.env.PATH}`,
    SYNAPSE_REGISTRY_DIR: opts.registryDir ?? path.join(h, '.a2a', 'registry'),
    SYNAPSE_HOME: path.join(h, '.synapse'),
    SYNAPSE_REPLY_TARGET_DIR: path.join(h, '.a2a', 'reply'),
    SYNAPSE_MESSAGE_DIR: path.join(h, 'messages'),
    SYNAPSE_HISTORY_ENABLED: 'false',
    SYNAPSE_SCREEN_TRACE: traceFile(cli, home.root),
    ...(opts.env ?? {}),
  };
  return { home, env };
}

/** The agent's event log: one pino JSON line per event (`{"time":"…","msg":"…",…}`). */
function parseEvents(out: string): LogEvent[] {
  const events: LogEvent[] = [];
  // The last line may still be arriving: only whole lines count.
  for (const line of out.split('\n').slice(0, -1)) {
    if (!line.startsWith('{')) continue;
    const rec = JSON.parse(line) as { time?: unknown; msg?: unknown };
    if (typeof rec.time === 'string' && typeof rec.msg === 'string') events.push({ at: Date.parse(rec.time), msg: rec.msg });
  }
  return events;
}

function statusChangesOf(events: LogEvent[]): Array<{ at: number; from: string; to: string }> {
  return events.flatMap((e) => {
    const m = /^status (\w+) -> (\w+)$/.exec(e.msg);
    return m ? [{ at: e.at, from: m[1]!, to: m[2]! }] : [];
  });
}

/** `synapse <cli> --headless --port P` in the prepared project dir; resolves once it takes messages. */
export async function startAgent(cli: Cli, mock: MockModelServer, opts: StartOptions = {}): Promise<E2EAgent> {
  const { home, env } = await prepareAgentHome(cli, mock, opts);
  await opts.setup?.(home, env);
  const port = await freePort();
  const args = [BIN, cli, '--headless', '--port', String(port), ...(opts.autoApprove ? ['--auto-approve'] : []), ...(opts.flags ?? [])];
  if (opts.cliArgs?.length) args.push('--', ...opts.cliArgs);
  const child = spawn(process.execPath, args, { cwd: home.cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const agentId = `synapse-${cli}-${port}`;
  const endpoint = `http://127.0.0.1:${port}`;
  let stopped: Promise<void> | null = null;
  const agent: E2EAgent = {
    cli,
    port,
    agentId,
    endpoint,
    home,
    env,
    child,
    output: () => out,
    events: () => parseEvents(out),
    statusChanges: () => statusChangesOf(parseEvents(out)),
    stop: () => (stopped ??= child.pid === undefined ? Promise.resolve() : stopTree(child.pid)),
  };
  defer(`agent ${agentId}`, () => agent.stop());
  await waitFor(
    async () => {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`agent exited early (${child.exitCode ?? child.signalCode}):\n${out}`);
      const res = await getJson(`${endpoint}/status`).catch(() => null);
      if (!res || res.status !== 200) return false;
      return opts.waitReady === false ? true : res.body.ready_for_messages === true;
    },
    START_MS,
    `${agentId} to take messages`,
  ).catch(async (err: Error) => {
    const screen = await screenText(agent).catch(() => '(no screen)');
    throw new Error(`${err.message}\n--- log ---\n${out}\n--- screen ---\n${screen}`);
  });
  return agent;
}

export async function screenText(agent: { endpoint: string }): Promise<string> {
  const { body } = await getJson(`${agent.endpoint}/screen`);
  return (body.lines as string[]).map((l) => l.trimEnd()).join('\n');
}

export async function status(agent: {
  endpoint: string;
}): Promise<{ status: string; ready_for_messages: boolean; current_task: string | null; queued: number }> {
  return (await getJson(`${agent.endpoint}/status`)).body;
}

export async function send(agent: { endpoint: string }, text: string, opts: { priority?: number; metadata?: Record<string, unknown> } = {}): Promise<any> {
  const url = opts.priority ? `${agent.endpoint}/tasks/send-priority?priority=${opts.priority}` : `${agent.endpoint}/tasks/send`;
  const res = await postJson(url, textMessage(text, opts.metadata));
  if (res.status !== 202) throw new Error(`POST ${url} answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.task;
}

/** `GET /tasks/{id}`: the task itself, in the original Synapse's shape (`status` a string). */
export async function getTask(agent: { endpoint: string }, id: string): Promise<any> {
  return (await getJson(`${agent.endpoint}/tasks/${id}`)).body;
}

const TERMINAL = ['completed', 'failed', 'canceled'];

/** Waits for the task to reach one of `states` (default: any terminal state). Shows the screen on timeout. */
export async function waitForState(agent: { endpoint: string; output?: () => string }, id: string, states: string[] = TERMINAL, ms = TURN_MS): Promise<any> {
  try {
    return await waitFor(
      async () => {
        const t = await getTask(agent, id);
        return states.includes(t?.status) ? t : null;
      },
      ms,
      `task ${id} to be ${states.join('|')}`,
    );
  } catch (err) {
    const t = await getTask(agent, id).catch(() => null);
    throw new Error(
      `${(err as Error).message} (it is ${t?.status})\n--- screen ---\n${await screenText(agent).catch(() => '')}\n--- log ---\n${agent.output?.() ?? ''}`,
      { cause: err },
    );
  }
}

/** The text of a wire task's artifacts (`{type: 'text', data: '…'}`). */
export function artifact(task: any): string {
  // What output parsing derived (code blocks, files; `metadata.derived`) is not the answer text.
  return (task.artifacts ?? [])
    .filter((a: any) => a.data?.metadata?.derived !== true)
    .map((a: any) => (typeof a.data === 'string' ? a.data : (a.data?.content ?? '')))
    .join('\n');
}

/** The text a plain message with no sender is delivered as. */
export const framed = (text: string) => `A2A: ${text}`;

/** TUI chrome that must never be part of an answer. */
const CHROME: Array<[string, RegExp]> = [
  ['box drawing / rules', /[╭╮╰╯│┃─━▄▀]/],
  ['input prompt marker', /^\s*[❯›>]\s/m],
  ['spinner glyph row', /^[·✢✳✶✻✽*⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏◦]\s/m],
  [
    'status footer',
    /\? for shortcuts|esc to (interrupt|cancel)|esc (again to )?interrupt|ctrl\+p commands|bypass permissions|shift\+tab|Shift\+Tab|← for agents|f2 to view/,
  ],
  ['input placeholder', /Type your message|Ask Codex to do anything|Ask anything…/],
  ['turn summary', /Worked for|\b\w+ed for \d+s\b|▣ /],
  ['model/status rows', /GPT-[\d.]+ default|no sandbox|workspace \(\/directory\)/],
  ['tool rows', /⎿|Bash\(|Running…|• Ran |Shell /],
];

export function chromeIn(text: string): string[] {
  return CHROME.filter(([, re]) => re.test(text)).map(([name]) => name);
}

/**
 * From the event log: the first moment after `t` the agent went from busy (PROCESSING, or WAITING
 * when the whole approved turn fell between two screen readings) to idle (DONE or READY).
 */
function idleAfter(agent: E2EAgent, t: number): number | null {
  return agent.statusChanges().find((c) => c.at >= t && (c.from === 'PROCESSING' || c.from === 'WAITING') && (c.to === 'DONE' || c.to === 'READY'))?.at ?? null;
}

/** Records one measured figure: printed, and appended to $SYNAPSE_E2E_REPORT (JSON lines) when set. */
export function report(figure: Record<string, unknown>): void {
  const line = JSON.stringify({ at: new Date().toISOString(), ...figure });
  console.log(`[e2e] ${line}`);
  const file = process.env.SYNAPSE_E2E_REPORT;
  if (file) fs.appendFileSync(file, `${line}\n`);
}

/** Idle lag of the turn that `req` answered: mock's last byte → agent idle (ms). */
export async function measureIdleLag(agent: E2EAgent, req: MockRequest, label: string): Promise<number> {
  await waitFor(() => req.endedAt !== null, TURN_MS, 'the mock to finish the answer');
  const idle = await waitFor(() => idleAfter(agent, req.endedAt!), TURN_MS, `${agent.agentId} to go idle`).catch((err: Error) => {
    const changes = agent.statusChanges().map((c) => `${c.at - req.endedAt!} ms ${c.from} -> ${c.to}`);
    throw new Error(`${err.message}; status changes relative to the last byte (${new Date(req.endedAt!).toISOString()}): ${changes.join(', ')}`);
  });
  const lag = idle - req.endedAt!;
  report({ kind: 'idle-lag', cli: agent.cli, case: label, lastByteToIdleMs: lag });
  return lag;
}

// --- waiting for a condition to hold ------------------------------------------------------------

/**
 * A negative assertion over time: `check` must hold on every poll for `ms` (e.g. "the half-typed
 * text is still alone in the input row"). Throws with the failing reason as soon as it breaks.
 */
export async function holdsFor(ms: number, check: () => Promise<string | null> | string | null, what: string): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    const broken = await check();
    if (broken) throw new Error(`${what}: ${broken}`);
    if (Date.now() >= end) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

// --- tmux (foreground agents) -------------------------------------------------------------------

export interface TmuxPane {
  socket: string;
  target: string;
  /** tmux args with the private socket: `tmux(['send-keys', …])`. */
  tmux(args: string[]): string;
  capture(): string[];
  sendKeys(...keys: string[]): void;
  /** Literal text, no key names, no Enter. */
  type(text: string): void;
  panePid(): number;
  kill(): Promise<void>;
}

/**
 * Runs `command` (argv) in a fresh detached tmux session of `cols`x`rows` on a private socket
 * (`tmux -L <socket>`), with exactly `env` as its environment (through a small launcher script).
 */
export function startTmux(argv: string[], opts: { env: Record<string, string>; cwd: string; cols?: number; rows?: number }): TmuxPane {
  const socket = `synapse-e2e-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'synapse-tmux-'));
  const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const script = path.join(dir, 'run.sh');
  fs.writeFileSync(
    script,
    [
      '#!/bin/sh',
      `cd ${q(opts.cwd)} || exit 1`,
      `exec env -i ${Object.entries(opts.env)
        .map(([k, v]) => q(`${k}=${v}`))
        .join(' ')} ${argv.map(q).join(' ')}`,
      '',
    ].join('\n'),
    { mode: 0o700 },
  );
  const tmux = (args: string[]): string => {
    const r = spawnSync('tmux', ['-L', socket, '-f', '/dev/null', ...args], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', TERM: 'xterm-256color', TMUX_TMPDIR: dir, HOME: dir },
    });
    if (r.status !== 0) throw new Error(`tmux ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
    return r.stdout;
  };
  tmux(['new-session', '-d', '-s', 'e2e', '-x', String(opts.cols ?? 120), '-y', String(opts.rows ?? 40), script]);
  // The pane keeps its size (no client attaches); keep the pane around if the command exits, for the capture.
  tmux(['set-option', '-t', 'e2e', 'remain-on-exit', 'on']);
  const target = 'e2e:0.0';
  let killed: Promise<void> | null = null;
  const pane: TmuxPane = {
    socket,
    target,
    tmux,
    capture: () => tmux(['capture-pane', '-p', '-t', target]).replace(/\n$/, '').split('\n'),
    sendKeys: (...keys) => void tmux(['send-keys', '-t', target, ...keys]),
    type: (text) => void tmux(['send-keys', '-t', target, '-l', text]),
    panePid: () => Number(tmux(['display-message', '-p', '-t', target, '#{pane_pid}']).trim()),
    kill: () =>
      (killed ??= (async () => {
        let pid: number | null = null;
        try {
          pid = pane.panePid();
        } catch {
          // server already gone
        }
        if (pid && alive(pid)) await stopTree(pid);
        try {
          tmux(['kill-server']);
        } catch {
          // no server
        }
        fs.rmSync(dir, { recursive: true, force: true });
      })()),
  };
  defer(`tmux -L ${socket}`, () => pane.kill());
  return pane;
}
