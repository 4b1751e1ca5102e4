import fs from 'node:fs';
import type * as NodePty from 'node-pty';
import path from 'node:path';
import { createRequire } from 'node:module';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, freePort, getJson, postJson, ROOT, tempHome, textMessage, waitFor, waitForTask } from '../../support/synapse.js';

const require = createRequire(import.meta.url);
const pty = require('node-pty') as typeof NodePty;

describe('foreground: synapse echo in a real terminal', () => {
  const t = tempHome();
  afterAll(() => t.cleanup());

  it('passes keys and output through, forwards resizes, delivers HTTP messages, and restores the terminal on exit', async () => {
    const port = await freePort();
    const term = pty.spawn(process.execPath, [BIN, 'echo', '--port', String(port), '--name', 'fg'], {
      name: 'xterm-256color',
      cols: 100,
      rows: 30,
      cwd: ROOT,
      env: t.env,
    });
    let out = '';
    term.onData((d) => (out += d));
    const exited = new Promise<number>((r) => term.onExit(({ exitCode }) => r(exitCode)));
    const endpoint = `http://127.0.0.1:${port}`;
    try {
      await waitFor(async () => (await getJson(`${endpoint}/status`)).body.ready_for_messages, 15_000, 'foreground agent ready');
      const entry = JSON.parse(fs.readFileSync(path.join(t.env.SYNAPSE_REGISTRY_DIR!, `synapse-echo-${port}.json`), 'utf8'));
      expect(entry.headless).toBe(false);
      expect((await getJson(`${endpoint}/screen`)).body.cols).toBe(100);

      term.write('typed by the user\r');
      await waitFor(() => out.includes('ECHO: typed by the user'), 5000, 'the echo of typed input');

      const sent = await postJson(`${endpoint}/tasks/send`, textMessage('from http'));
      await waitForTask(endpoint, sent.body.task.id);
      expect(out).toContain('ECHO: A2A: from http');

      term.resize(90, 25);
      await waitFor(async () => (await getJson(`${endpoint}/screen`)).body.cols === 90, 5000, 'resize to reach the CLI screen');
      expect((await getJson(`${endpoint}/screen`)).body.rows).toBe(25);

      term.write('\x04'); // Ctrl-D at an empty prompt: the echo CLI exits
      expect(await exited).toBe(0);
      expect(out).toContain('bye');
      // Modes the CLI set (bracketed paste) are switched off and the cursor shown again.
      expect(out.slice(-200)).toContain('\x1b[?2004l');
      expect(out.slice(-200)).toContain('\x1b[?25h');
      expect(fs.existsSync(path.join(t.env.SYNAPSE_REGISTRY_DIR!, `synapse-echo-${port}.json`))).toBe(false);
    } finally {
      try {
        term.kill('SIGKILL');
      } catch {
        // already exited
      }
    }
  });
});
