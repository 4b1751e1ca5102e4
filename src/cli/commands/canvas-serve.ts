import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { iso } from '../../clock.js';
import { canvasStateFile, logsDir, type Env } from '../../config/paths.js';
import { envSetting } from '../../config/env-setting.js';
import { SynapseError } from '../../errors.js';
import { deferExtraCaCerts } from '../../extra-ca-certs.js';
import { VERSION } from '../../version.js';
import { printJson, println, type CommandIo } from '../io.js';
import { parsePositiveInt, projectDir } from './store-cli.js';
import type { CanvasState } from './canvas-client.js';

export interface ServeOptions {
  port?: string;
  open: boolean;
  json?: boolean;
}

/** Agent Control's send: `synapse send <target> --wait --force` as a person (never as the agent whose shell runs the server). */
async function sendAsPerson(io: CommandIo, target: string, text: string, timeoutMs: number) {
  const { deliverMessage } = await import('./send.js');
  const { peerTaskText } = await import('../../a2a/wire-client.js');
  const env = { ...io.env };
  delete env.SYNAPSE_AGENT_ID;
  const quiet: CommandIo = { ...io, env, err: () => undefined, isTerminal: () => false, parentPid: 1 };
  const { target: entry, done, task } = await deliverMessage(target, text, { priority: 3, mode: 'wait', timeoutMs, force: true }, quiet);
  const finished = done ?? task;
  return { task_id: finished.id, target: entry.agent_id, status: finished.status, answer: peerTaskText(finished), error: finished.error };
}

async function jumpTo(io: CommandIo, target: string): Promise<string> {
  const { jumpCommand } = await import('./team-cli.js');
  let said = '';
  await jumpCommand(target, { ...io, out: (t) => void (said += t) });
  return said.trim();
}

/** Opens the URL in the desktop's browser; nothing happens where there is none. */
function openBrowser(url: string): void {
  const cmd = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
  try {
    const child = spawn(cmd, [url], { stdio: 'ignore', detached: true });
    child.on('error', () => undefined);
    child.unref();
  } catch {
    // no opener: the URL is printed anyway
  }
}

/** The port: `--port`, else `SYNAPSE_CANVAS_PORT` (the original's name), else 3000. */
function canvasPort(flag: string | undefined, env: Env): number {
  if (flag !== undefined) return parsePositiveInt(flag, '--port', 65535);
  const fromEnv = envSetting(env, 'SYNAPSE_CANVAS_PORT');
  return fromEnv === undefined ? 3000 : parsePositiveInt(fromEnv, 'SYNAPSE_CANVAS_PORT', 65535);
}

/** `~/.synapse/logs/canvas.log`: what a canvas started in the background (`open`, `restart`) prints. */
function canvasLogFile(env: Env): string {
  return path.join(logsDir(env), 'canvas.log');
}

function logTail(env: Env, lines: number): string[] {
  let text: string;
  try {
    text = fs.readFileSync(canvasLogFile(env), 'utf8');
  } catch {
    return [];
  }
  const all = text.split('\n');
  if (all.at(-1) === '') all.pop();
  return all.slice(-lines);
}

const BACKGROUND_START_MS = 15_000;

/**
 * Starts `synapse canvas serve` detached, its output appended to the log, and waits until its
 * state file names it. If it exits first, the error carries the log's last lines.
 */
async function startInBackground(port: number, io: CommandIo): Promise<CanvasState> {
  const { runningCanvas } = await import('./canvas-client.js');
  const { synapseBin } = await import('../../runtime/launch.js');
  const log = canvasLogFile(io.env);
  fs.mkdirSync(path.dirname(log), { recursive: true, mode: 0o700 });
  const fd = fs.openSync(log, 'a', 0o600);
  let exited: number | null | undefined;
  try {
    const child = spawn(process.execPath, [synapseBin, 'canvas', 'serve', '--port', String(port), '--no-open'], {
      cwd: projectDir(io),
      env: deferExtraCaCerts(io.env),
      detached: true,
      stdio: ['ignore', fd, fd],
    });
    child.on('exit', (code) => (exited = code));
    child.unref();
    const deadline = Date.now() + BACKGROUND_START_MS;
    for (;;) {
      const state = runningCanvas(io.env);
      if (state && state.pid === child.pid) return state;
      if (exited !== undefined || Date.now() > deadline) {
        if (exited === undefined) child.kill('SIGTERM');
        const why = exited === undefined ? `did not answer within ${BACKGROUND_START_MS / 1000} s` : `exited (code ${exited})`;
        throw new SynapseError('conflict', `the canvas server ${why}; its log (${log}) ends:\n${logTail(io.env, 10).join('\n')}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    fs.closeSync(fd);
  }
}

/** `synapse canvas open`: the running canvas, or one started in the background; then the browser. */
export async function openCanvas(o: { port?: string; json?: boolean; browser?: boolean }, io: CommandIo): Promise<void> {
  const { runningCanvas } = await import('./canvas-client.js');
  const running = runningCanvas(io.env);
  const state = running ?? (await startInBackground(canvasPort(o.port, io.env), io));
  if (o.browser !== false && io.isTerminal('stdout')) openBrowser(state.url);
  if (o.json) return printJson(io, { ...state, started: running === null, log: canvasLogFile(io.env) });
  println(
    io,
    running
      ? `Canvas: ${state.url} (already running, pid ${state.pid})`
      : `Canvas: ${state.url} (started in the background, pid ${state.pid}; synapse canvas stop ends it)`,
  );
}

/** `synapse canvas restart`: stops the running canvas, then starts it again in the background on the same port. */
export async function restartCanvas(o: { port?: string; json?: boolean; open?: boolean }, io: CommandIo): Promise<void> {
  const { runningCanvas } = await import('./canvas-client.js');
  const before = runningCanvas(io.env);
  if (before) await stopCanvas({ json: false }, { ...io, out: () => undefined });
  const port = o.port !== undefined ? canvasPort(o.port, io.env) : (before?.port ?? canvasPort(undefined, io.env));
  const state = await startInBackground(port, io);
  if (o.open !== false && io.isTerminal('stdout')) openBrowser(state.url);
  if (o.json) return printJson(io, { ...state, restarted: before !== null, previous_pid: before?.pid ?? null });
  println(io, `Canvas: ${state.url} (${before ? `restarted; was pid ${before.pid}` : 'was not running; started'}, pid ${state.pid})`);
}

/** `synapse canvas logs`: the background canvas's log, its last lines; `--follow` keeps printing. */
export async function canvasLogs(o: { lines?: string; follow?: boolean }, io: CommandIo): Promise<void> {
  const lines = parsePositiveInt(o.lines ?? '50', '--lines', 100_000);
  const log = canvasLogFile(io.env);
  if (!fs.existsSync(log)) return println(io, `No log file at ${log} (synapse canvas open or restart writes it; serve prints to its terminal)`);
  for (const line of logTail(io.env, lines)) println(io, line);
  if (!o.follow) return;
  let offset = fs.statSync(log).size;
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      let size: number;
      try {
        size = fs.statSync(log).size;
      } catch {
        return;
      }
      if (size < offset) offset = 0;
      if (size === offset) return;
      const fd = fs.openSync(log, 'r');
      const buf = Buffer.alloc(size - offset);
      fs.readSync(fd, buf, 0, buf.length, offset);
      fs.closeSync(fd);
      offset = size;
      io.out(buf.toString('utf8'));
    }, 250);
    const stop = () => {
      clearInterval(timer);
      resolve();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}

/** `synapse canvas serve`: runs until SIGINT/SIGTERM, then removes its state file. */
export async function serveCanvas(o: ServeOptions, io: CommandIo): Promise<void> {
  const port = canvasPort(o.port, io.env);
  const { runningCanvas } = await import('./canvas-client.js');
  const running = runningCanvas(io.env);
  if (running) throw new SynapseError('conflict', `the canvas is already running at ${running.url} (pid ${running.pid}); stop it with synapse canvas stop`);
  const { buildCanvasApp } = await import('../../server/canvas/canvas-app.js');
  const url = `http://127.0.0.1:${port}`;
  const startedAt = iso(Date.now());
  const { app } = await buildCanvasApp({
    env: io.env,
    projectDir: projectDir(io),
    port,
    send: (target, text, timeoutMs) => sendAsPerson(io, target, text, timeoutMs),
    jump: (target) => jumpTo(io, target),
    info: () => ({ version: VERSION, pid: process.pid, port, url, project_dir: projectDir(io), started_at: startedAt }),
  });
  try {
    await app.listen({ host: '127.0.0.1', port });
  } catch (err) {
    await app.close();
    throw new SynapseError('conflict', `cannot listen on 127.0.0.1:${port}: ${(err as Error).message}; choose another with --port`);
  }
  const state: CanvasState = { pid: process.pid, port, url, project_dir: projectDir(io), started_at: startedAt };
  const file = canvasStateFile(io.env);
  fs.writeFileSync(file, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  if (o.json) printJson(io, state);
  else println(io, `Canvas: ${url}  (Ctrl-C stops it)`);
  if (o.open && io.isTerminal('stdout')) openBrowser(url);
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await app.close();
  fs.rmSync(file, { force: true });
}

/** `synapse canvas status`. */
export async function canvasStatus(o: { json?: boolean }, io: CommandIo): Promise<void> {
  const { runningCanvas } = await import('./canvas-client.js');
  const state = runningCanvas(io.env);
  if (o.json) return printJson(io, state ? { running: true, ...state } : { running: false });
  println(
    io,
    state
      ? `running at ${state.url} (pid ${state.pid}, board of ${state.project_dir}, since ${state.started_at})`
      : 'not running; start it with synapse canvas serve',
  );
}

/** `synapse canvas stop`: SIGTERM, then waits up to 5 s for it to go. */
export async function stopCanvas(o: { json?: boolean }, io: CommandIo): Promise<void> {
  const { runningCanvas } = await import('./canvas-client.js');
  const state = runningCanvas(io.env);
  if (!state) {
    if (o.json) return printJson(io, { stopped: false, running: false });
    return println(io, 'not running');
  }
  process.kill(state.pid, 'SIGTERM');
  const deadline = Date.now() + 5000;
  while (runningCanvas(io.env) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  const stopped = runningCanvas(io.env) === null;
  if (o.json) return printJson(io, { stopped, pid: state.pid });
  if (!stopped) throw new SynapseError('conflict', `the canvas (pid ${state.pid}) did not stop within 5 s`);
  println(io, `stopped the canvas at ${state.url}`);
}
