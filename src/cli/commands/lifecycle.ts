import fs from 'node:fs';
import { requestJson } from '../../a2a/http-json.js';
import { SynapseError } from '../../errors.js';
import { isPidAlive } from '../../registry/liveness.js';
import { findAgent, openRegistry } from '../../registry/lookup.js';
import type { RegistryEntry } from '../../registry/entry.js';
import { preview, renderTable } from '../table.js';

async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!isPidAlive(pid)) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return !isPidAlive(pid);
}

function signalAgent(pid: number, signal: NodeJS.Signals): void {
  // A background agent leads its own process group; a foreground one shares its shell's.
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
}

export async function stopAgent(target: string, opts: { timeoutMs: number; force: boolean; escalate?: boolean }): Promise<void> {
  const { entry, registry } = findAgent(target);
  const label = `${entry.agent_id}${entry.name ? ` (${entry.name})` : ''}`;
  if (opts.force) {
    signalAgent(entry.pid, 'SIGKILL');
    await waitForExit(entry.pid, 2000);
    registry.remove(entry.agent_id);
    process.stdout.write(`killed ${label}\n`);
    return;
  }
  try {
    await requestJson(`${entry.endpoint}/shutdown`, { method: 'POST', timeoutMs: 3000 });
  } catch {
    // unreachable: fall through to signals
    process.kill(entry.pid, 'SIGTERM');
  }
  if (await waitForExit(entry.pid, opts.timeoutMs)) {
    process.stdout.write(`stopped ${label}\n`);
    return;
  }
  if (!opts.escalate) {
    throw new SynapseError('internal', `${label} did not stop within ${opts.timeoutMs / 1000} s; use \`synapse kill ${target}\` (or -f to SIGKILL)`);
  }
  signalAgent(entry.pid, 'SIGTERM');
  if (await waitForExit(entry.pid, 3000)) {
    process.stdout.write(`terminated ${label} (SIGTERM)\n`);
    return;
  }
  signalAgent(entry.pid, 'SIGKILL');
  await waitForExit(entry.pid, 2000);
  registry.remove(entry.agent_id);
  process.stdout.write(`killed ${label} (SIGKILL after SIGTERM timed out)\n`);
}

export function listAgents(flags: { json?: boolean }): void {
  const live = openRegistry().listLive();
  if (flags.json) {
    process.stdout.write(`${JSON.stringify(live, null, 2)}\n`);
    return;
  }
  if (live.length === 0) {
    process.stdout.write('No agents running. Start one with `synapse start echo` or `synapse claude`.\n');
    return;
  }
  const rows = live.map((e: RegistryEntry) => [
    e.agent_id,
    e.name ?? '-',
    e.agent_type,
    preview(e.role, 24),
    e.status,
    preview(e.current_task_preview, 32),
    String(e.port),
    e.working_dir,
  ]);
  process.stdout.write(`${renderTable(['ID', 'NAME', 'TYPE', 'ROLE', 'STATUS', 'CURRENT', 'PORT', 'WORKING_DIR'], rows)}\n`);
}

export async function agentStatus(target: string, flags: { json?: boolean }): Promise<void> {
  const { entry } = findAgent(target);
  const res = await requestJson<Record<string, unknown>>(`${entry.endpoint}/status`, { timeoutMs: 5000 });
  const live = res.status === 200 && res.body && typeof res.body === 'object' ? res.body : null;
  const out = { ...entry, live };
  if (flags.json) {
    process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
    return;
  }
  const lines = [
    `${entry.agent_id}${entry.name ? ` (${entry.name})` : ''}  ${entry.agent_type}  ${live ? String(live.status) : entry.status}`,
    `  endpoint     ${entry.endpoint}`,
    `  pid          ${entry.pid}`,
    `  working dir  ${entry.working_dir}`,
    `  role         ${entry.role ?? '-'}`,
    `  current      ${entry.current_task_preview ?? '-'}`,
    `  queued       ${live ? String(live.queued) : '?'}`,
    `  accepting    ${live ? (live.ready_for_messages ? 'yes' : 'not yet (starting)') : 'unknown (agent did not answer)'}`,
    `  since        ${entry.registered_at}`,
    `  log          ${entry.log_file ?? '-'}`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

export async function agentLogs(target: string, opts: { lines: number; follow: boolean; screen: boolean }): Promise<void> {
  const { entry } = findAgent(target);
  if (opts.screen) {
    const res = await requestJson<{ lines: string[] }>(`${entry.endpoint}/screen`, { timeoutMs: 5000 });
    process.stdout.write(`${(res.body.lines ?? []).join('\n').trimEnd()}\n`);
    return;
  }
  if (!entry.log_file) throw new SynapseError('not_found', `${entry.agent_id} has no log file`);
  const file = entry.log_file;
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new SynapseError('not_found', `cannot read ${file}: ${(err as Error).message}`);
  }
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  process.stdout.write(`${lines.slice(-Math.max(1, opts.lines)).join('\n')}\n`);
  if (!opts.follow) return;
  let offset = Buffer.byteLength(text);
  await new Promise<void>(() => {
    fs.watchFile(file, { interval: 250 }, (cur) => {
      if (cur.size <= offset) return;
      const fd = fs.openSync(file, 'r');
      const buf = Buffer.alloc(cur.size - offset);
      fs.readSync(fd, buf, 0, buf.length, offset);
      fs.closeSync(fd);
      offset = cur.size;
      process.stdout.write(buf);
    });
  });
}
