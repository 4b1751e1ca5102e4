import fs from 'node:fs';
import type * as NodePty from 'node-pty';
import path from 'node:path';
import { createRequire } from 'node:module';
import xtermHeadless from '@xterm/headless';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, freePort, getJson, postJson, ROOT, tempHome, textMessage, waitFor, waitForTask } from '../../support/synapse.js';

const require = createRequire(import.meta.url);
const pty = require('node-pty') as typeof NodePty;
const { Terminal } = xtermHeadless;

describe('foreground: synapse echo in a real terminal', () => {
  const t = tempHome();
  afterAll(() => t.cleanup());

  /** `synapse <args>` in a 100x30 terminal of its own: what it writes, and its exit code. */
  function inTerminal(args: string[]): { term: NodePty.IPty; output: () => string; exited: Promise<number> } {
    const term = pty.spawn(process.execPath, [BIN, ...args], {
      name: 'xterm-256color',
      cols: 100,
      rows: 30,
      cwd: ROOT,
      env: { ...t.env, SYNAPSE_AGENT_SAVE_PROMPT_ENABLED: 'false' },
    });
    let out = '';
    term.onData((d) => (out += d));
    return { term, output: () => out, exited: new Promise<number>((r) => term.onExit(({ exitCode }) => r(exitCode))) };
  }

  it('passes keys and output through, forwards resizes, delivers HTTP messages, and restores the terminal on exit', async () => {
    const port = await freePort();
    const { term, output, exited } = inTerminal(['echo', '--port', String(port), '--name', 'fg']);
    const endpoint = `http://127.0.0.1:${port}`;
    try {
      await waitFor(async () => (await getJson(`${endpoint}/status`)).body.ready_for_messages, 15_000, 'foreground agent ready');
      const entry = JSON.parse(fs.readFileSync(path.join(t.env.SYNAPSE_REGISTRY_DIR!, `synapse-echo-${port}.json`), 'utf8'));
      expect(entry.headless).toBe(false);
      expect((await getJson(`${endpoint}/screen`)).body.cols).toBe(100);
      // The CLI's first screen was drawn before the agent loaded its terminal emulator (it waits for
      // that output first): the held bytes still reached the emulator.
      expect(((await getJson(`${endpoint}/screen`)).body.lines as string[]).join('\n')).toContain('Echo agent — built into Synapse.');

      term.write('typed by the user\r');
      await waitFor(() => output().includes('ECHO: typed by the user'), 5000, 'the echo of typed input');

      const sent = await postJson(`${endpoint}/tasks/send`, textMessage('from http'));
      await waitForTask(endpoint, sent.body.task.id);
      expect(output()).toContain('ECHO: A2A: from http');

      term.resize(90, 25);
      await waitFor(async () => (await getJson(`${endpoint}/screen`)).body.cols === 90, 5000, 'resize to reach the CLI screen');
      expect((await getJson(`${endpoint}/screen`)).body.rows).toBe(25);

      term.write('\x04'); // Ctrl-D at an empty prompt: the echo CLI exits
      expect(await exited).toBe(0);
      expect(output()).toContain('bye');
      // Modes the CLI set (bracketed paste) are switched off and the cursor shown again.
      expect(output().slice(-200)).toContain('\x1b[?2004l');
      expect(output().slice(-200)).toContain('\x1b[?25h');
      expect(fs.existsSync(path.join(t.env.SYNAPSE_REGISTRY_DIR!, `synapse-echo-${port}.json`))).toBe(false);
    } finally {
      try {
        term.kill('SIGKILL');
      } catch {
        // already exited
      }
    }
  });

  it('a CLI that exits during start-up leaves its exit code and last lines visible on the terminal, after the terminal is restored', async () => {
    const port = await freePort();
    const { term, output, exited } = inTerminal(['echo', '--port', String(port), '--no-setup', '--', '--exit-at-start', '3']);
    try {
      // A hang fails on the test's timeout; the finally below ends the terminal either way.
      expect(await exited).toBe(3);
    } finally {
      try {
        term.kill('SIGKILL');
      } catch {
        // already exited
      }
    }
    // What the user's terminal shows now: rendered, after synapse gave the terminal back.
    const out = output();
    const screen = new Terminal({ cols: 100, rows: 30, allowProposedApi: true });
    await new Promise<void>((r) => screen.write(out, r));
    const rows: string[] = [];
    for (let y = 0; y < screen.rows; y++) rows.push(screen.buffer.active.getLine(screen.buffer.active.baseY + y)?.translateToString(true) ?? '');
    screen.dispose();
    const shown = rows.filter((l) => l.trim());
    expect(shown.slice(-3)).toEqual([
      'synapse: echo exited (code 3) during start-up; its last lines on screen:',
      '  | Echo agent — built into Synapse. Type a message and press Enter.',
      '  | Cannot start: asked to exit at start-up with code 3.',
    ]);
    expect(out.lastIndexOf('\x1b[?25h')).toBeLessThan(out.lastIndexOf('synapse: echo exited'));
  });
});
