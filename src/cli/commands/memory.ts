import type { Command } from 'commander';
import type { Memory } from '../../store/memory-schema.js';
import type { MemoryStore } from '../../store/memory-store.js';
import { SynapseError } from '../../errors.js';
import { printJson, println, processIo, type CommandIo } from '../io.js';
import { preview, renderTable } from '../table.js';
import { callerIdentity, examples, parsePositiveInt, projectDir, splitList } from './store-cli.js';
import { envSetting } from '../../config/env-setting.js';

/**
 * `synapse memory …`: one exported function per subcommand, called by commander with the
 * parsed arguments and options. The store (better-sqlite3) is imported only when one runs.
 */

async function withMemory<T>(io: CommandIo, fn: (m: MemoryStore) => Promise<T>): Promise<T> {
  const { sharedMemoryEnabled } = await import('../../store/settings.js');
  if (!sharedMemoryEnabled(io.env)) {
    throw new SynapseError('usage', 'shared memory is disabled (SYNAPSE_SHARED_MEMORY_ENABLED is off); unset it or set it to true to use memory commands');
  }
  const { openMemory } = await import('../../store/memory-store.js');
  const { secretRedactor } = await import('../../redact.js');
  const memory = await openMemory(projectDir(io), { redact: secretRedactor(io.env), env: io.env });
  try {
    return await fn(memory);
  } finally {
    await memory.close();
  }
}

function table(list: Memory[]): string {
  return renderTable(
    ['KEY', 'TAGS', 'AUTHOR', 'UPDATED', 'CONTENT'],
    list.map((m) => [m.key, m.tags.length ? m.tags.join(',') : '-', m.author ?? '-', m.updated_at, preview(m.content, 50)]),
  );
}

/** `synapse memory save <key> <content>`: `-` reads the content from stdin; `--notify` tells the agents here. */
export async function saveMemory(
  key: string,
  content: string,
  o: { tags?: string; author?: string; notify?: boolean; json?: boolean },
  io: CommandIo,
): Promise<void> {
  const text = content === '-' ? await io.readStdin() : content;
  const author = o.author ?? callerIdentity(io.env);
  const result = await withMemory(io, (m) => m.save({ key, content: text, tags: splitList(o.tags), author }));
  let notify: { notified: string[]; failed: string[] } | null = null;
  if (o.notify) {
    const [{ notifyPeers }, { memoryNotice }] = await Promise.all([import('../../a2a/peer-notify.js'), import('../../store/memory-notice.js')]);
    notify = await notifyPeers({
      env: io.env,
      workingDir: projectDir(io),
      text: memoryNotice(result.memory.key, result.memory.content, result.memory.author),
      exclude: envSetting(io.env, 'SYNAPSE_AGENT_ID') ?? null,
    });
  }
  if (o.json) return printJson(io, { ...result, notify });
  println(io, `${result.created ? 'saved' : 'updated'} ${result.memory.key}${result.memory.tags.length ? ` [${result.memory.tags.join(', ')}]` : ''}`);
  if (notify) println(io, `notified ${notify.notified.length} agent(s)${notify.failed.length ? `; ${notify.failed.length} did not accept the notice` : ''}`);
}

/** `synapse memory list`: most recently updated first. */
export async function listMemory(o: { tag?: string; author?: string; limit: string; json?: boolean }, io: CommandIo): Promise<void> {
  const limit = parsePositiveInt(o.limit, '--limit');
  const list = await withMemory(io, (m) => m.list({ tag: o.tag, author: o.author, limit }));
  if (o.json) return printJson(io, list);
  println(io, list.length === 0 ? 'No notes saved. Add one with: synapse memory save <key> "content"' : table(list));
}

/** `synapse memory search <query>`: full text, best match first. */
export async function searchMemory(query: string, o: { limit: string; json?: boolean }, io: CommandIo): Promise<void> {
  const limit = parsePositiveInt(o.limit, '--limit');
  const hits = await withMemory(io, (m) => m.search(query, { limit }));
  if (o.json) return printJson(io, hits);
  if (hits.length === 0) return println(io, `No notes match '${query}'.`);
  println(
    io,
    renderTable(
      ['#', 'KEY', 'TAGS', 'CONTENT'],
      hits.map((h, i) => [String(i + 1), h.key, h.tags.length ? h.tags.join(',') : '-', preview(h.content, 60)]),
    ),
  );
}

/** `synapse memory show <key>`. */
export async function showMemory(key: string, o: { json?: boolean }, io: CommandIo): Promise<void> {
  const m = await withMemory(io, (mem) => mem.get(key));
  if (o.json) return printJson(io, m);
  println(
    io,
    `key:     ${m.key}\ntags:    ${m.tags.join(', ') || '-'}\nauthor:  ${m.author ?? '-'}\nupdated: ${m.updated_at} (created ${m.created_at})\n\n${m.content}`,
  );
}

/** `synapse memory delete <key>`. */
export async function deleteMemory(key: string, o: { json?: boolean }, io: CommandIo): Promise<void> {
  const m = await withMemory(io, (mem) => mem.delete(key));
  if (o.json) return printJson(io, m);
  println(io, `deleted ${m.key}`);
}

/** `synapse memory stats`: how many notes, their size, authors and tags. */
export async function memoryStats(o: { json?: boolean }, io: CommandIo): Promise<void> {
  const st = await withMemory(io, (m) => m.stats());
  if (o.json) return printJson(io, st);
  println(io, `notes:   ${st.count} (${st.total_bytes} bytes)`);
  println(io, `oldest:  ${st.oldest ?? '-'}\nnewest:  ${st.newest ?? '-'}`);
  const fmt = (rec: Record<string, number>) =>
    Object.entries(rec)
      .map(([k, n]) => `${k} (${n})`)
      .join(', ') || '-';
  println(io, `authors: ${fmt(st.authors)}`);
  println(io, `tags:    ${fmt(st.tags)}`);
}

/** Declarations only: commander parses, the functions above do the work. */
export function registerMemoryCommands(program: Command): void {
  const memory = program.command('memory').description('Notes shared by the agents of this project, with full-text search (.synapse/memory.db)');
  examples(memory, ['synapse memory save auth-flow "JWT in httpOnly cookie, refresh every 15m" --tags auth,decision', 'synapse memory search "refresh token"']);

  examples(
    memory
      .command('save')
      .description('Save a note under a key (replaces the note if the key exists)')
      .argument('<key>', 'unique key, e.g. db-schema or decisions/auth')
      .argument('<content>', 'the note; - reads it from stdin')
      .option('--tags <tags>', 'comma-separated tags')
      .option('--author <agent>', 'who wrote it (default: $SYNAPSE_AGENT_ID, else your user name)')
      .option('--notify', 'tell the other running agents in this directory about the note')
      .option('--json', 'print as JSON'),
    [
      'synapse memory save api-style "REST, snake_case JSON, errors as {error:{code,message}}" --tags api,convention --notify',
      'git log -5 | synapse memory save recent-commits -',
    ],
  ).action((key: string, content: string, o: { tags?: string; author?: string; notify?: boolean; json?: boolean }) => saveMemory(key, content, o, processIo()));

  examples(
    memory
      .command('list')
      .description('List notes, most recently updated first')
      .option('--tag <tag>', 'only notes with this tag')
      .option('--author <agent>', 'only notes by this author')
      .option('--limit <n>', 'at most this many', '100')
      .option('--json', 'print as JSON'),
    ['synapse memory list --tag decision'],
  ).action((o: { tag?: string; author?: string; limit: string; json?: boolean }) => listMemory(o, processIo()));

  examples(
    memory
      .command('search')
      .description('Full-text search over keys, content and tags, best match first')
      .argument('<query>', 'words to look for (each also matches as a prefix)')
      .option('--limit <n>', 'at most this many', '20')
      .option('--json', 'print as JSON'),
    ['synapse memory search "database migration"'],
  ).action((query: string, o: { limit: string; json?: boolean }) => searchMemory(query, o, processIo()));

  examples(memory.command('show').description('Print one note').argument('<key>').option('--json', 'print as JSON'), ['synapse memory show api-style']).action(
    (key: string, o: { json?: boolean }) => showMemory(key, o, processIo()),
  );

  examples(memory.command('delete').description('Delete one note').argument('<key>').option('--json', 'print as JSON'), [
    'synapse memory delete old-notes',
  ]).action((key: string, o: { json?: boolean }) => deleteMemory(key, o, processIo()));

  examples(memory.command('stats').description('How many notes, their size, authors and tags').option('--json', 'print as JSON'), [
    'synapse memory stats',
  ]).action((o: { json?: boolean }) => memoryStats(o, processIo()));
}
