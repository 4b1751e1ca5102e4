import fs from 'node:fs';
import type * as NodePty from 'node-pty';
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fill, ID_A, ID_B, ID_C } from '../../support/history-fixture.js';
import { BIN, runCli, tempHome, waitFor } from '../../support/synapse.js';

/**
 * Spawn smoke tests: `bin/synapse.js history …` parses, calls the command, knows a pipe from a
 * terminal and exits with the right code. What each command does is tested in-process in
 * test/integration/cli/history.test.ts.
 */

const require = createRequire(import.meta.url);
const pty = require('node-pty') as typeof NodePty;

let t: ReturnType<typeof tempHome>;
let project: string;

const cli = (args: string[]) => runCli(args, { env: t.env, cwd: project });
async function json(args: string[]): Promise<any> {
  const r = await cli(args);
  if (r.code !== 0) throw new Error(`synapse ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

beforeEach(() => {
  t = tempHome();
  project = path.join(t.home, 'project');
  fs.mkdirSync(project);
});

afterEach(() => {
  t.cleanup();
});

describe('synapse history (spawned)', () => {
  it('lists as JSON, and cleanup through a pipe refuses without --force (exit 1)', async () => {
    fill(t.env);
    expect((await json(['history', 'list', '--json'])).map((e: { task_id: string }) => e.task_id)).toEqual([ID_C, ID_B, ID_A]);
    const refused = await cli(['history', 'cleanup', '--days', '30']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('not a terminal, so nothing was deleted');
    const badLogic = await cli(['history', 'search', 'x', '--logic', 'XOR']);
    expect(badLogic.code).toBe(1);
    expect(badLogic.stderr).toContain('Allowed choices are AND, OR, and, or');
  });
});

describe('synapse history cleanup in a terminal (spawned)', () => {
  /** Runs cleanup in a real terminal and answers its question. */
  async function answer(reply: string): Promise<{ code: number; out: string }> {
    const term = pty.spawn(process.execPath, [BIN, 'history', 'cleanup', '--days', '30'], {
      name: 'xterm-256color',
      cols: 120,
      rows: 20,
      cwd: project,
      env: t.env,
    });
    let out = '';
    term.onData((d) => (out += d));
    const exited = new Promise<number>((r) => term.onExit(({ exitCode }) => r(exitCode)));
    try {
      await waitFor(() => out.includes('[y/N]'), 10_000, 'the confirmation question');
      term.write(`${reply}\r`);
      return { code: await exited, out };
    } finally {
      try {
        term.kill('SIGKILL');
      } catch {
        // already exited
      }
    }
  }

  it('asks before deleting: no keeps everything, yes deletes', async () => {
    fill(t.env);
    const no = await answer('n');
    expect(no.out).toContain('Delete 1 of 3 history entries?');
    expect(no.code).toBe(1);
    expect(await json(['history', 'list', '--json'])).toHaveLength(3);
    const yes = await answer('y');
    expect(yes.code).toBe(0);
    expect(yes.out).toContain('Deleted 1 entry, kept 2');
    expect(await json(['history', 'list', '--json'])).toHaveLength(2);
  });
});
