import type { Command } from 'commander';
import type { Memory, SharedMemory } from '../../store/memory.js';
import { SynapseError } from '../../errors.js';
import { preview, renderTable } from '../table.js';
import { callerIdentity, examples, parsePositiveInt, print, printJson, projectDir, splitList } from './store-cli.js';

async function withMemory<T>(fn: (m: SharedMemory) => T | Promise<T>): Promise<T> {
  const { sharedMemoryEnabled } = await import('../../store/settings.js');
  if (!sharedMemoryEnabled(process.env)) {
    throw new SynapseError('usage', 'shared memory is disabled (SYNAPSE_SHARED_MEMORY_ENABLED is off); unset it or set it to true to use memory commands');
  }
  const { SharedMemory } = await import('../../store/memory.js');
  const memory = SharedMemory.forProject(projectDir());
  try {
    return await fn(memory);
  } finally {
    memory.close();
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function table(list: Memory[]): string {
  return renderTable(
    ['KEY', 'TAGS', 'AUTHOR', 'UPDATED', 'CONTENT'],
    list.map((m) => [m.key, m.tags.length ? m.tags.join(',') : '-', m.author ?? '-', m.updated_at, preview(m.content, 50)]),
  );
}

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
    ['synapse memory save api-style "REST, snake_case JSON, errors as {error:{code,message}}" --tags api,convention --notify', 'git log -5 | synapse memory save recent-commits -'],
  ).action(async (key: string, content: string, o: { tags?: string; author?: string; notify?: boolean; json?: boolean }) => {
    const text = content === '-' ? await readStdin() : content;
    const author = o.author ?? callerIdentity();
    const result = await withMemory((m) => m.save({ key, content: text, tags: splitList(o.tags), author }));
    let notify: { notified: string[]; failed: string[] } | null = null;
    if (o.notify) {
      const [{ notifyPeers }, { memoryNotice }] = await Promise.all([import('../../a2a/peer-notify.js'), import('../../store/memory.js')]);
      notify = await notifyPeers({
        env: process.env,
        workingDir: projectDir(),
        text: memoryNotice(result.memory.key, result.memory.content, result.memory.author),
        exclude: process.env.SYNAPSE_AGENT_ID ?? null,
      });
    }
    if (o.json) return printJson({ ...result, notify });
    print(`${result.created ? 'saved' : 'updated'} ${result.memory.key}${result.memory.tags.length ? ` [${result.memory.tags.join(', ')}]` : ''}`);
    if (notify) print(`notified ${notify.notified.length} agent(s)${notify.failed.length ? `; ${notify.failed.length} did not accept the notice` : ''}`);
  });

  examples(
    memory
      .command('list')
      .description('List notes, most recently updated first')
      .option('--tag <tag>', 'only notes with this tag')
      .option('--author <agent>', 'only notes by this author')
      .option('--limit <n>', 'at most this many', '100')
      .option('--json', 'print as JSON'),
    ['synapse memory list --tag decision'],
  ).action(async (o: { tag?: string; author?: string; limit: string; json?: boolean }) => {
    const limit = parsePositiveInt(o.limit, '--limit');
    const list = await withMemory((m) => m.list({ tag: o.tag, author: o.author, limit }));
    if (o.json) return printJson(list);
    print(list.length === 0 ? 'No notes saved. Add one with: synapse memory save <key> "content"' : table(list));
  });

  examples(
    memory
      .command('search')
      .description('Full-text search over keys, content and tags, best match first')
      .argument('<query>', 'words to look for (each also matches as a prefix)')
      .option('--limit <n>', 'at most this many', '20')
      .option('--json', 'print as JSON'),
    ['synapse memory search "database migration"'],
  ).action(async (query: string, o: { limit: string; json?: boolean }) => {
    const limit = parsePositiveInt(o.limit, '--limit');
    const hits = await withMemory((m) => m.search(query, { limit }));
    if (o.json) return printJson(hits);
    if (hits.length === 0) return print(`No notes match '${query}'.`);
    print(
      renderTable(
        ['#', 'KEY', 'TAGS', 'CONTENT'],
        hits.map((h, i) => [String(i + 1), h.key, h.tags.length ? h.tags.join(',') : '-', preview(h.content, 60)]),
      ),
    );
  });

  examples(memory.command('show').description('Print one note').argument('<key>').option('--json', 'print as JSON'), ['synapse memory show api-style']).action(
    async (key: string, o: { json?: boolean }) => {
      const m = await withMemory((mem) => mem.get(key));
      if (o.json) return printJson(m);
      print(`key:     ${m.key}\ntags:    ${m.tags.join(', ') || '-'}\nauthor:  ${m.author ?? '-'}\nupdated: ${m.updated_at} (created ${m.created_at})\n\n${m.content}`);
    },
  );

  examples(memory.command('delete').description('Delete one note').argument('<key>').option('--json', 'print as JSON'), ['synapse memory delete old-notes']).action(
    async (key: string, o: { json?: boolean }) => {
      const m = await withMemory((mem) => mem.delete(key));
      if (o.json) return printJson(m);
      print(`deleted ${m.key}`);
    },
  );

  examples(memory.command('stats').description('How many notes, their size, authors and tags').option('--json', 'print as JSON'), ['synapse memory stats']).action(
    async (o: { json?: boolean }) => {
      const st = await withMemory((m) => m.stats());
      if (o.json) return printJson(st);
      print(`notes:   ${st.count} (${st.total_bytes} bytes)`);
      print(`oldest:  ${st.oldest ?? '-'}\nnewest:  ${st.newest ?? '-'}`);
      const fmt = (rec: Record<string, number>) => Object.entries(rec).map(([k, n]) => `${k} (${n})`).join(', ') || '-';
      print(`authors: ${fmt(st.authors)}`);
      print(`tags:    ${fmt(st.tags)}`);
    },
  );
}
