import fs from 'node:fs';
import type * as NodePty from 'node-pty';
import path from 'node:path';
import { createRequire } from 'node:module';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, waitFor } from '../../support/synapse.js';
import { tempProject, type Project } from '../../support/project.js';

const require = createRequire(import.meta.url);
const pty = require('node-pty') as typeof NodePty;

/** `synapse config` on a real terminal: pick a scope, a key, a value. */

let project: Project | null = null;
let term: NodePty.IPty | null = null;
afterEach(() => {
  try {
    term?.kill('SIGKILL');
  } catch {
    // exited already
  }
  term = null;
  project?.cleanup();
  project = null;
});

describe('synapse config, interactive', () => {
  it('writes the value picked for the key picked into the scope picked', async () => {
    project = tempProject();
    term = pty.spawn(process.execPath, [BIN, 'config'], { name: 'xterm-256color', cols: 120, rows: 30, cwd: project.dir, env: project.env });
    let out = '';
    term.onData((d) => (out += d));
    const exited = new Promise<number>((r) => term!.onExit(({ exitCode }) => r(exitCode)));
    /** Waits for `prompt` in what the terminal showed since the last keys, then types `keys`. */
    const step = async (prompt: string | RegExp, keys: string) => {
      const plain = () => out.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');
      await waitFor(() => (typeof prompt === 'string' ? out.includes(prompt) : prompt.test(plain())), 10_000, `"${prompt}" on the terminal`);
      out = '';
      term!.write(keys);
    };
    await step('Which settings file?', '\r'); // the default: project
    await step('Which key?', 'a2a.fl');
    // The filtered key, with its merged value and source, drawn under the whole search term: the
    // search prompt drops an Enter that comes while it still filters (earlier draws keep the old list).
    await step(/\(type to filter\) a2a\.fl\r\n❯ a2a\.flow = "auto" \(default\)/, '\r');
    await step('(remove from this file)', '\x1b[B\r'); // the value list: auto (current) -> down -> roundtrip
    await step('Change another key?', 'n\r');
    expect(await exited).toBe(0);
    const file = path.join(project.dir, '.synapse', 'settings.json');
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({ a2a: { flow: 'roundtrip' } });
  });
});
