import type { Command } from 'commander';
import type { FileLock, FileSafetyStore } from '../../store/file-safety.js';
import { SynapseError } from '../../errors.js';
import { ExitRequest } from '../exit.js';
import { renderTable } from '../table.js';
import { examples, parsePositiveInt, print, printJson, projectDir } from './store-cli.js';

async function requireEnabled(): Promise<void> {
  const { fileSafetyEnabled } = await import('../../store/settings.js');
  if (!fileSafetyEnabled(process.env)) {
    throw new SynapseError('usage', 'file safety is disabled (SYNAPSE_FILE_SAFETY_ENABLED is off); unset it or set it to true to use file-safety commands');
  }
}

async function withStore<T>(fn: (s: FileSafetyStore) => T | Promise<T>): Promise<T> {
  await requireEnabled();
  const { FileSafetyStore } = await import('../../store/file-safety.js');
  const store = FileSafetyStore.forProject(projectDir(), process.env);
  try {
    return await fn(store);
  } finally {
    store.close();
  }
}

/**
 * Whose lock this is and which process keeps it alive. A registered, live agent (named the way
 * a send target is) is recorded by its agent id with the agent's own pid, because the shell an
 * agent's CLI runs a command in exits right after it. Otherwise the caller's parent process
 * (the shell or program that ran `synapse`) is the owner. `--pid` overrides; `--pid 0` means
 * "no owner process": the lock lives until its TTL or an unlock.
 */
async function owner(agent: string, pidOption: string | undefined): Promise<{ agent: string; pid: number | null }> {
  const { findLiveAgent } = await import('../../registry/lookup.js');
  const registered = findLiveAgent(agent, process.env);
  const id = registered?.agent_id ?? agent.trim();
  if (pidOption !== undefined) {
    if (pidOption.trim() === '0') return { agent: id, pid: null };
    return { agent: id, pid: parsePositiveInt(pidOption, '--pid', 2 ** 31 - 1) };
  }
  return { agent: id, pid: registered?.pid ?? process.ppid };
}

async function canonical(agent: string): Promise<string> {
  const { agentIdOrName } = await import('../../registry/lookup.js');
  return agentIdOrName(agent, process.env);
}

function lockLine(l: FileLock): string {
  return `${l.path}  ${l.agent_id}${l.pid === null ? '' : ` (pid ${l.pid})`}  until ${l.expires_at}${l.intent ? `  ${l.intent}` : ''}`;
}

export function registerFileSafetyCommands(program: Command): void {
  const fsCmd = program
    .command('file-safety')
    .description('Per-file locks and a change log shared by the agents of this project (.synapse/file_safety.db)');
  examples(fsCmd, ['synapse file-safety lock src/app.ts alice --intent "refactor login"', 'synapse file-safety validate src/app.ts bob', 'synapse file-safety locks']);

  examples(
    fsCmd
      .command('lock')
      .description('Lock a file for an agent (renews it if the agent already holds it)')
      .argument('<path>', 'file to lock (relative paths are resolved against the project)')
      .argument('<agent>', 'agent id or name that will edit it')
      .option('--intent <text>', 'what the agent is about to do')
      .option('--ttl <duration>', 'how long the lock lasts unless renewed, e.g. 600, 10m, 1h (bare number = seconds)', '600')
      .option('--wait', 'wait for the current holder to release it instead of failing')
      .option('--wait-timeout <duration>', 'with --wait: give up after this long', '60')
      .option('--wait-interval <duration>', 'with --wait: how often to retry', '2')
      .option('--pid <pid>', 'process whose death releases the lock (default: the agent\'s pid if registered, else the calling shell; 0 = TTL only)')
      .option('--json', 'print the lock as JSON'),
    ['synapse file-safety lock src/db.ts alice --intent "add index" --ttl 15m', 'synapse file-safety lock src/db.ts bob --wait --wait-timeout 2m'],
  ).action(
    async (file: string, agent: string, o: { intent?: string; ttl: string; wait?: boolean; waitTimeout: string; waitInterval: string; pid?: string; json?: boolean }) => {
      const { parseDuration, formatDuration } = await import('../../store/duration.js');
      const ttlMs = parseDuration(o.ttl, 's', '--ttl');
      const timeoutMs = parseDuration(o.waitTimeout, 's', '--wait-timeout');
      const intervalMs = parseDuration(o.waitInterval, 's', '--wait-interval');
      const who = await owner(agent, o.pid);
      const result = await withStore(async (s) => {
        const req = { path: file, agent: who.agent, pid: who.pid, intent: o.intent, ttlMs };
        if (!o.wait) return s.lock(req);
        let told = false;
        return s.lockWait(req, {
          timeoutMs,
          intervalMs,
          onWait: (holder) => {
            if (told) return;
            told = true;
            process.stderr.write(`waiting up to ${formatDuration(timeoutMs)} for ${holder.agent_id} to release ${holder.path}…\n`);
          },
        });
      });
      if (o.json) return printJson(result);
      if (result.reaped) print(`cleared stale lock of ${result.reaped.agent_id}`);
      print(`${result.renewed ? 'renewed' : 'locked'} ${lockLine(result.lock)}`);
    },
  );

  examples(
    fsCmd.command('unlock').description("Release an agent's lock (only the owner can)").argument('<path>').argument('<agent>').option('--json', 'print as JSON'),
    ['synapse file-safety unlock src/db.ts alice'],
  ).action(async (file: string, agent: string, o: { json?: boolean }) => {
    const who = await canonical(agent);
    const result = await withStore((s) => s.unlock(file, who));
    if (o.json) return printJson(result);
    print(result.released ? `unlocked ${result.path}` : `${result.path} was not locked by ${who} (nothing to do)`);
  });

  examples(fsCmd.command('locks').description('List the live locks').option('--json', 'print as JSON'), ['synapse file-safety locks --json']).action(
    async (o: { json?: boolean }) => {
      const locks = await withStore((s) => s.locks());
      if (o.json) return printJson(locks);
      if (locks.length === 0) return print('No files are locked.');
      print(
        renderTable(
          ['PATH', 'AGENT', 'PID', 'EXPIRES', 'INTENT'],
          locks.map((l) => [l.path, l.agent_id, l.pid === null ? '-' : String(l.pid), l.expires_at, l.intent ?? '-']),
        ),
      );
    },
  );

  examples(fsCmd.command('status').description('Counts: live and stale locks, locks per agent, recorded changes').option('--json', 'print as JSON'), [
    'synapse file-safety status',
  ]).action(async (o: { json?: boolean }) => {
    const st = await withStore((s) => s.status());
    if (o.json) return printJson(st);
    print(`active locks:      ${st.active_locks}`);
    print(`stale locks:       ${st.stale_locks} (removed by the next lock or cleanup)`);
    for (const [a, n] of Object.entries(st.agents)) print(`  ${a}: ${n}`);
    print(`changes recorded:  ${st.changes_total} (${st.changes_last_24h} in the last 24h)`);
  });

  examples(
    fsCmd
      .command('validate')
      .description('May this agent write the file? Exit 0 = allowed, 1 = denied (locked by another agent, or the database is unreadable)')
      .argument('<path>')
      .argument('<agent>')
      .option('--json', 'print the verdict as JSON'),
    ['synapse file-safety validate src/db.ts bob && echo ok-to-write'],
  ).action(async (file: string, agent: string, o: { json?: boolean }) => {
    const { validateWrite } = await import('../../store/file-safety.js');
    const who = await canonical(agent);
    const verdict = validateWrite(projectDir(), file, who, process.env);
    if (o.json) printJson(verdict);
    else print(verdict.allowed ? `allowed: ${verdict.path}` : `denied: ${verdict.reason}`);
    if (!verdict.allowed) throw new ExitRequest(1);
  });

  examples(
    fsCmd
      .command('record')
      .description('Record a change an agent made to a file')
      .argument('<path>')
      .argument('<agent>')
      .requiredOption('--type <type>', 'create, modify or delete')
      .option('--intent <text>', 'why')
      .option('--task <id>', 'the task the change belongs to (shown by synapse trace)')
      .option('--json', 'print as JSON'),
    ['synapse file-safety record src/db.ts alice --type modify --intent "add index" --task 1a2b3c4d'],
  ).action(async (file: string, agent: string, o: { type: string; intent?: string; task?: string; json?: boolean }) => {
    const { CHANGE_TYPES } = await import('../../store/file-safety-schema.js');
    const type = o.type.trim().toLowerCase();
    if (!(CHANGE_TYPES as readonly string[]).includes(type)) throw new SynapseError('usage', `--type must be one of ${CHANGE_TYPES.join(', ')}, got '${o.type}'`);
    const who = await canonical(agent);
    const change = await withStore((s) => s.record({ path: file, agent: who, type: type as (typeof CHANGE_TYPES)[number], intent: o.intent, taskId: o.task }));
    if (o.json) return printJson(change);
    print(`recorded ${change.change_type} of ${change.path} by ${change.agent_id}`);
  });

  const changeTable = (rows: { recorded_at: string; change_type: string; agent_id: string; path: string; intent: string | null; task_id: string | null }[]) => {
    return renderTable(
      ['WHEN', 'TYPE', 'AGENT', 'PATH', 'TASK', 'INTENT'],
      rows.map((c) => [c.recorded_at, c.change_type, c.agent_id, c.path, c.task_id ?? '-', c.intent ?? '-']),
    );
  };

  examples(fsCmd.command('history').description('Changes recorded for one file, newest first').argument('<path>').option('--limit <n>', 'at most this many', '50').option('--json', 'print as JSON'), [
    'synapse file-safety history src/db.ts',
  ]).action(async (file: string, o: { limit: string; json?: boolean }) => {
    const limit = parsePositiveInt(o.limit, '--limit');
    const rows = await withStore((s) => s.history(file, limit));
    if (o.json) return printJson(rows);
    print(rows.length === 0 ? 'No changes recorded for this file.' : changeTable(rows));
  });

  examples(fsCmd.command('recent').description('The latest recorded changes').option('--limit <n>', 'at most this many', '20').option('--json', 'print as JSON'), [
    'synapse file-safety recent --limit 5',
  ]).action(async (o: { limit: string; json?: boolean }) => {
    const limit = parsePositiveInt(o.limit, '--limit');
    const rows = await withStore((s) => s.recent(limit));
    if (o.json) return printJson(rows);
    print(rows.length === 0 ? 'No changes recorded yet.' : changeTable(rows));
  });

  examples(
    fsCmd
      .command('cleanup')
      .description('Delete change records older than N days and every stale lock')
      .requiredOption('--days <n>', 'keep the last N days of changes (0 = delete all)')
      .option('--json', 'print as JSON'),
    ['synapse file-safety cleanup --days 30'],
  ).action(async (o: { days: string; json?: boolean }) => {
    const days = o.days.trim() === '0' ? 0 : parsePositiveInt(o.days, '--days');
    const result = await withStore((s) => s.cleanup(days));
    if (o.json) return printJson(result);
    print(`deleted ${result.changes_deleted} change record(s), removed ${result.locks_reaped} stale lock(s)`);
  });

  examples(fsCmd.command('debug').description('Where the database is, its schema, health, and every lock row with why it is (not) live'), ['synapse file-safety debug']).action(
    async () => {
      const { fileSafetyDbPath, fileSafetyEnabled } = await import('../../store/settings.js');
      const env = {
        SYNAPSE_FILE_SAFETY_ENABLED: process.env.SYNAPSE_FILE_SAFETY_ENABLED ?? null,
        SYNAPSE_FILE_SAFETY_DB_PATH: process.env.SYNAPSE_FILE_SAFETY_DB_PATH ?? null,
      };
      const enabled = fileSafetyEnabled(process.env);
      if (!enabled) return printJson({ enabled, file: fileSafetyDbPath(projectDir(), process.env), env });
      const info = await withStore((s) => s.debugInfo());
      printJson({ enabled, env, ...info });
    },
  );
}
