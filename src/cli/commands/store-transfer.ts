import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { SynapseError } from '../../errors.js';
import { printJson, println, processIo, type CommandIo } from '../io.js';
import { examples, projectDir } from './store-cli.js';

/**
 * `synapse store export|import` (issue 22): the shared store to a portable JSON-lines file and
 * into the configured backend (store/store-export.ts has the format and the rules).
 */

interface TransferFlags {
  json?: boolean;
  url?: string;
}

async function chosen(flags: TransferFlags) {
  if (flags.url === undefined) return undefined;
  const { parseStoreUrl } = await import('../../store/store-url.js');
  return parseStoreUrl(flags.url);
}

const counts = (rows: Record<string, number>) =>
  `${rows.board_tasks} tasks, ${rows.board_task_deps} dependencies, ${rows.memory_notes} notes, ${rows.file_locks} locks, ${rows.file_changes} change records, ${rows.history ?? 0} history entries`;

/** `synapse store export FILE` (`-`: standard output). */
async function storeExportCommand(file: string, flags: TransferFlags, io: CommandIo): Promise<void> {
  const store = await import('../../store/store-export.js');
  const options = { env: io.env, target: await chosen(flags), retryForMs: 10_000 };
  if (file === '-') {
    const { text } = await store.exportStore(projectDir(io), options);
    return io.out(text);
  }
  const result = await store.exportStoreToFile(projectDir(io), path.resolve(io.cwd, file), options);
  if (flags.json) return printJson(io, result);
  println(io, `exported ${counts(result.rows)} from ${result.backend} (${result.location}) to ${result.file}`);
}

/** `synapse store import FILE` (`-`: standard input): all or nothing. */
async function storeImportCommand(file: string, flags: TransferFlags, io: CommandIo): Promise<void> {
  const store = await import('../../store/store-export.js');
  const source = file === '-' ? 'standard input' : path.resolve(io.cwd, file);
  let text: string;
  try {
    text = file === '-' ? await io.readStdin() : fs.readFileSync(source, 'utf8');
  } catch (err) {
    throw new SynapseError('invalid_input', `cannot read ${source}: ${(err as Error).message}`, { file: source });
  }
  const result = await store.importStore(projectDir(io), source, text, { env: io.env, target: await chosen(flags), retryForMs: 10_000 });
  if (flags.json) return printJson(io, result);
  const inserted = Object.fromEntries(Object.entries(result.tables).map(([t, c]) => [t, c.inserted]));
  const unchanged = Object.values(result.tables).reduce((n, c) => n + c.unchanged, 0);
  println(io, `imported ${counts(inserted)} into ${result.backend} (${result.location}); ${unchanged} row(s) were there already`);
}

export function registerStoreTransferCommands(store: Command): void {
  examples(
    store
      .command('export <file>')
      .description(
        'Write the whole store (board, dependencies, memory, file locks and change records, history) to a JSON-lines file (- for standard output): a header line, then one {"table":…,"row":{…}} per row. On SQLite the history is the entries of agents that worked in this project, from your own history file',
      )
      .option('--url <url>', 'a store URL instead of SYNAPSE_STORE_URL / settings store.url (sqlite: or postgres://…)')
      .option('--json', 'print the row counts as JSON'),
    ['synapse store export team-store.jsonl', 'SYNAPSE_STORE_URL=postgres://synapse:PASSWORD@db.lan:5432/team synapse store export backup.jsonl'],
  ).action((file: string, o: TransferFlags) => storeExportCommand(file, o, processIo()));
  examples(
    store
      .command('import <file>')
      .description(
        'Load a file of synapse store export into the configured store, all or nothing: every line is checked first (a bad one is named by its number); rows already there unchanged are skipped; a row whose key is there with other content refuses the import (conflict)',
      )
      .option('--url <url>', 'a store URL instead of SYNAPSE_STORE_URL / settings store.url')
      .option('--json', 'print inserted and unchanged rows per table as JSON'),
    [
      'synapse store export team-store.jsonl && SYNAPSE_STORE_URL=postgres://synapse:PASSWORD@db.lan:5432/team synapse store import team-store.jsonl',
      'synapse store import team-store.jsonl --url sqlite: --json',
    ],
  ).action((file: string, o: TransferFlags) => storeImportCommand(file, o, processIo()));
}
