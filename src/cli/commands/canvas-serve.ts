import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { canvasStateFile } from '../../config/paths.js';
import { SynapseError } from '../../errors.js';
import { VERSION } from '../../version.js';
import { printJson, println, type CommandIo } from '../io.js';
import { parsePositiveInt, projectDir } from './store-cli.js';
import type { CanvasState } from './canvas-client.js';

export interface ServeOptions {
  port: string;
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

/** `synapse canvas serve`: runs until SIGINT/SIGTERM, then removes its state file. */
export async function serveCanvas(o: ServeOptions, io: CommandIo): Promise<void> {
  const port = parsePositiveInt(o.port, '--port', 65535);
  const { runningCanvas } = await import('./canvas-client.js');
  const running = runningCanvas(io.env);
  if (running) throw new SynapseError('conflict', `the canvas is already running at ${running.url} (pid ${running.pid}); stop it with synapse canvas stop`);
  const { buildCanvasApp } = await import('../../server/canvas/canvas-app.js');
  const url = `http://127.0.0.1:${port}`;
  const startedAt = new Date().toISOString();
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
