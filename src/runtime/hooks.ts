import { spawn } from 'node:child_process';
import type { Env } from '../config/env.js';
import type { HookEvent } from '../config/keys.js';
import type { Settings } from '../config/settings.js';
import type { AgentStatusModel } from './agent-status.js';
import type { ScreenReading } from './screen-status.js';

/** What a hook run gives: ok = exit 0; `output` = the tail of stdout and stderr together. */
export interface HookResult {
  ok: boolean;
  exitCode: number | null;
  output: string;
}

const MAX_OUTPUT = 16 * 1024;
const HOOK_TIMEOUT_MS = 10 * 60_000;

/**
 * The quality gates of the settings (`hooks.on_idle`, `hooks.on_task_completed`): shell commands
 * run in the agent's working directory. The settings hold only the hooks that may run: those of
 * the user's file, and those of the project's files once the user trusts them (`synapse trust`;
 * config/settings.ts leaves untrusted ones out).
 */
export class QualityGates {
  constructor(private readonly opts: { hooks: Settings['hooks']; env: Env; cwd: string; agentId: string; log: (msg: string) => void }) {}

  /** Whether `event` has a hook. */
  has(event: HookEvent): boolean {
    return this.opts.hooks[event] !== undefined;
  }

  /** Runs `event`'s hook (call `has` first); never rejects. */
  run(event: HookEvent, extraEnv: Record<string, string> = {}): Promise<HookResult> {
    const command = this.opts.hooks[event]!.command;
    return new Promise((resolve) => {
      let output = '';
      const keep = (d: Buffer) => {
        output = (output + d.toString('utf8')).slice(-MAX_OUTPUT);
      };
      const child = spawn('/bin/sh', ['-c', command], {
        cwd: this.opts.cwd,
        env: { ...this.opts.env, SYNAPSE_AGENT_ID: this.opts.agentId, SYNAPSE_HOOK: event, ...extraEnv },
        stdio: ['ignore', 'pipe', 'pipe'],
        timeout: HOOK_TIMEOUT_MS,
      });
      child.stdout.on('data', keep);
      child.stderr.on('data', keep);
      child.on('error', (err) => resolve({ ok: false, exitCode: null, output: `cannot run hooks.${event}: ${err.message}` }));
      child.on('close', (code) => {
        const result = { ok: code === 0, exitCode: code, output: output.trim() };
        this.opts.log(`hooks.${event} (${command}) exited ${code ?? 'by a signal'}`);
        resolve(result);
      });
    });
  }
}

/**
 * `hooks.on_idle`: each time the screen turns READY the hook runs, and until it exits 0 the agent
 * is reported PROCESSING, not READY (its output goes to the log). After a failure it runs again on
 * every new READY screen, even one that never left READY (a fast CLI answers between two
 * readings), and a READY seen while it runs queues one more run: otherwise a fix made meanwhile
 * would leave the agent PROCESSING for good. Listens to `reading`, which the tracker emits before
 * `change`, so READY is never shown while the hook runs.
 */
export function gateIdle(
  gates: Pick<QualityGates, 'has' | 'run'>,
  tracker: { on(event: 'reading', listener: (r: ScreenReading) => void): unknown; readonly current: ScreenReading | null },
  status: Pick<AgentStatusModel, 'setIdleGate'>,
  log: (msg: string) => void,
): void {
  let running = false;
  let again = false;
  let failed = false;
  let wasReady = false;
  let lastSeq: number | null = null;
  const start = (seq: number) => {
    running = true;
    lastSeq = seq;
    status.setIdleGate(false);
    void gates.run('on_idle').then((result) => {
      running = false;
      failed = !result.ok;
      if (!result.ok) log(`hooks.on_idle failed (exit ${result.exitCode ?? 'none'}): not reported READY. Output: ${result.output || '(none)'}`);
      const now = tracker.current;
      if (again && now?.status === 'READY') {
        again = false;
        start(now.seq);
        return;
      }
      again = false;
      status.setIdleGate(result.ok);
    });
  };
  tracker.on('reading', (r: ScreenReading) => {
    const becameReady = r.status === 'READY' && !wasReady;
    wasReady = r.status === 'READY';
    if (!wasReady || !gates.has('on_idle')) return;
    if (!becameReady && !(failed && r.seq !== lastSeq)) return;
    if (running) again = true;
    else start(r.seq);
  });
}

/** `hooks.on_task_completed` for the reply coordinator: null when there is none that may run. */
export function completionGate(gates: QualityGates): (task: { id: string }) => Promise<HookResult | null> {
  return (task) => (gates.has('on_task_completed') ? gates.run('on_task_completed', { SYNAPSE_TASK_ID: task.id }) : Promise.resolve(null));
}
