import fs from 'node:fs';
import type * as NodePty from 'node-pty';
import path from 'node:path';
import { createRequire } from 'node:module';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { BIN, freePort, getJson, tempHome, waitFor } from '../../support/synapse.js';

const require = createRequire(import.meta.url);
const pty = require('node-pty') as typeof NodePty;

/** The questions `synapse <profile>` asks on a real terminal: name/role set-up and the approval prompt. */

const t = tempHome();
const terms: { term: NodePty.IPty; exited: Promise<number> }[] = [];
/** Stops each agent as a user would (SIGTERM: it stops its CLI too), SIGKILL only if it hangs. */
afterEach(async () => {
  for (const { term, exited } of terms.splice(0)) {
    try {
      term.kill('SIGTERM');
    } catch {
      continue; // already exited
    }
    const timer = setTimeout(() => {
      try {
        term.kill('SIGKILL');
      } catch {
        // gone meanwhile
      }
    }, 5000);
    await exited;
    clearTimeout(timer);
  }
});
afterAll(() => t.cleanup());

function project(settings: unknown): string {
  const dir = fs.mkdtempSync(path.join(t.home, 'project-'));
  fs.mkdirSync(path.join(dir, '.synapse'));
  fs.writeFileSync(path.join(dir, '.synapse', 'settings.json'), JSON.stringify(settings));
  return dir;
}

function inTerminal(args: string[], cwd: string): { term: NodePty.IPty; output: () => string; exited: Promise<number> } {
  const term = pty.spawn(process.execPath, [BIN, ...args], { name: 'xterm-256color', cols: 100, rows: 30, cwd, env: t.env });
  let out = '';
  term.onData((d) => (out += d));
  const exited = new Promise<number>((r) => term.onExit(({ exitCode }) => r(exitCode)));
  terms.push({ term, exited });
  return { term, output: () => out, exited };
}

const entryFile = (port: number) => path.join(t.env.SYNAPSE_REGISTRY_DIR!, `synapse-echo-${port}.json`);

describe('approvalMode required, on a real terminal', () => {
  it('shows the agent id and port and asks; n does not start it (exit 1, no registry entry)', async () => {
    const port = await freePort();
    const { term, output, exited } = inTerminal(['echo', '--port', String(port), '--name', 'alice'], project({ approvalMode: 'required' }));
    await waitFor(() => output().includes('Proceed? [Y/n/s(skip)]'), 15_000, 'the approval prompt');
    expect(output()).toContain(`[Synapse] Agent: synapse-echo-${port} | Port: ${port}`);
    expect(output()).toContain('[Synapse] Name: alice | Role: -');
    expect(output()).toContain('[Synapse] Start-up instruction: default.md');
    term.write('n\r');
    expect(await exited).toBe(1);
    expect(output()).toContain(`synapse-echo-${port} not started`);
    expect(fs.existsSync(entryFile(port))).toBe(false);
  });

  it('s starts the agent without its start-up instruction', async () => {
    const port = await freePort();
    const { term, output } = inTerminal(['echo', '--port', String(port), '--no-setup'], project({ approvalMode: 'required' }));
    await waitFor(() => output().includes('Proceed? [Y/n/s(skip)]'), 15_000, 'the approval prompt');
    term.write('s\r');
    const endpoint = `http://127.0.0.1:${port}`;
    await waitFor(async () => (await getJson(`${endpoint}/status`)).body.ready_for_messages, 15_000, 'agent ready');
    const tasks = (await getJson(`${endpoint}/tasks`)).body;
    expect(tasks.filter((x: any) => x.metadata.kind === 'bootstrap')).toHaveLength(0);
  });

  it('approvalMode auto (the default) asks nothing and sends the instruction', async () => {
    const port = await freePort();
    const { output } = inTerminal(['echo', '--port', String(port), '--no-setup'], project({}));
    const endpoint = `http://127.0.0.1:${port}`;
    await waitFor(async () => (await getJson(`${endpoint}/status`)).body.ready_for_messages, 15_000, 'agent ready');
    expect(output()).not.toContain('Proceed?');
    const tasks = (await getJson(`${endpoint}/tasks`)).body;
    expect(tasks.filter((x: any) => x.metadata.kind === 'bootstrap')).toHaveLength(1);
  });
});

describe('name and role set-up, on a real terminal', () => {
  it('asks for a name and a role when neither is given, and registers the answers', async () => {
    const port = await freePort();
    const { term, output } = inTerminal(['echo', '--port', String(port)], project({}));
    await waitFor(() => output().includes('[Synapse] Name'), 15_000, 'the name question');
    term.write('bob\r');
    await waitFor(() => output().includes('[Synapse] Role'), 5_000, 'the role question');
    term.write('tests the parser\r');
    const entry = await waitFor(
      () => (fs.existsSync(entryFile(port)) ? JSON.parse(fs.readFileSync(entryFile(port), 'utf8')) : null),
      15_000,
      'the registry entry',
    );
    expect(entry).toMatchObject({ name: 'bob', role: 'tests the parser' });
  });
});
