import fs from 'node:fs';
import { formatLogChunk, formatLogLine } from '../log-lines.js';
import path from 'node:path';
import { withTaskBoard } from '../../store/board.js';
import { locksHeldBy } from '../../store/file-safety.js';
import { boardDbPath } from '../../store/settings.js';
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

/** The file each agent holds a lock on (first of them, with a count), from its project's store. */
function editingFiles(live: RegistryEntry[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of live) {
    try {
      const locks = locksHeldBy(e.working_dir, e.agent_id);
      if (locks.length) out.set(e.agent_id, `${path.relative(e.working_dir, locks[0]!.path) || locks[0]!.path}${locks.length > 1 ? ` (+${locks.length - 1})` : ''}`);
    } catch {
      out.set(e.agent_id, '(file-safety db unreadable)');
    }
  }
  return out;
}

export function listAgents(flags: { json?: boolean }): void {
  const { entries: live, problems } = openRegistry().scanLive();
  // Files that are not entries (corrupt, or another program's) are left alone, and said so.
  for (const p of problems) process.stderr.write(`skipped registry file ${p.file}: ${p.reason}\n`);
  if (flags.json) {
    process.stdout.write(`${JSON.stringify(live, null, 2)}\n`);
    return;
  }
  if (live.length === 0) {
    process.stdout.write('No agents running. Start one with `synapse start echo` or `synapse claude`.\n');
    return;
  }
  const editing = editingFiles(live);
  const rows = live.map((e: RegistryEntry) => [
    e.agent_id,
    e.name ?? '-',
    e.agent_type,
    preview(e.role, 24),
    e.status,
    preview(e.current_task_preview, 32),
    String(e.port),
    editing.get(e.agent_id) ?? '-',
    e.working_dir,
  ]);
  process.stdout.write(`${renderTable(['ID', 'NAME', 'TYPE', 'ROLE', 'STATUS', 'CURRENT', 'PORT', 'EDITING_FILE', 'WORKING_DIR'], rows)}\n`);
}

export async function agentStatus(target: string, flags: { json?: boolean }): Promise<void> {
  const { entry } = findAgent(target);
  const res = await requestJson<Record<string, unknown>>(`${entry.endpoint}/status`, { timeoutMs: 5000 });
  const live = res.status === 200 && res.body && typeof res.body === 'object' ? res.body : null;
  const locks = locksHeldBy(entry.working_dir, entry.agent_id);
  const boardTasks = fs.existsSync(boardDbPath(entry.working_dir))
    ? withTaskBoard(entry.working_dir, (b) => b.list({ assignee: [entry.agent_id, ...(entry.name ? [entry.name] : [])], status: ['pending', 'in_progress'] }))
    : [];
  const out = { ...entry, live, locks, board_tasks: boardTasks };
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
    `  locks        ${locks.length ? locks.map((l) => `${l.path}${l.intent ? ` (${l.intent})` : ''}`).join(', ') : '-'}`,
    `  board tasks  ${boardTasks.length ? boardTasks.map((t) => `${t.id.slice(0, 8)} ${t.status} ${t.subject}`).join('; ') : '-'}`,
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
  process.stdout.write(`${lines.slice(-Math.max(1, opts.lines)).map(formatLogLine).join('\n')}\n`);
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
      process.stdout.write(formatLogChunk(buf.toString('utf8')));
    });
  });
}
