import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import type * as NodePty from 'node-pty';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, runCli, tempHome, waitFor } from '../../support/synapse.js';

/** `synapse skills` on a real terminal: pick a skill, act on it, quit; and the plain list without one. */

const pty = createRequire(import.meta.url)('node-pty') as typeof NodePty;
const UP = '\x1b[A';
const DOWN = '\x1b[B';

let t: ReturnType<typeof tempHome>;
let project: string;
beforeEach(() => {
  t = tempHome();
  t.env.SYNAPSE_SKILLS_DIR = path.join(t.home, 'central-skills');
  project = fs.realpathSync(fs.mkdtempSync(path.join(t.home, 'project-')));
  const dir = path.join(t.env.SYNAPSE_SKILLS_DIR, 'aaa-tty');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'SKILL.md'), '---\nname: aaa-tty\ndescription: A skill for the terminal test.\n---\n\nTTY BODY MARKER\n');
});
afterEach(() => t.cleanup());

const plain = (s: string) => s.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');

describe('synapse skills on a terminal', () => {
  it('shows a picked skill, deploys one for the chosen CLIs, and quits', async () => {
    const term = pty.spawn(process.execPath, [BIN, 'skills'], { name: 'xterm-256color', cols: 140, rows: 40, cwd: project, env: t.env });
    let out = '';
    term.onData((d) => (out += d));
    const exited = new Promise<number>((r) => term.onExit(({ exitCode }) => r(exitCode)));
    const seen = (text: string, from = 0) => waitFor(() => plain(out.slice(from)).includes(text), 10_000, `"${text}" on the terminal`);
    try {
      await seen('aaa-tty  [synapse]');
      let mark = out.length;
      term.write('\r'); // the first skill: aaa-tty (the central store comes first)
      await seen('show', mark);
      mark = out.length;
      term.write('\r'); // show
      await seen('TTY BODY MARKER', mark);

      await seen('Skills (', mark);
      mark = out.length;
      term.write('\r'); // aaa-tty again
      await seen('deploy for CLIs', mark);
      mark = out.length;
      term.write(`${DOWN}\r`); // deploy
      await seen('For which CLIs?', mark);
      mark = out.length;
      term.write(' \r'); // claude (the first), confirmed
      await seen('Where?', mark);
      mark = out.length;
      term.write('\r'); // project
      await seen(`deployed aaa-tty -> ${path.join(project, '.claude', 'skills', 'aaa-tty')}`, mark);

      await seen('Skills (', mark);
      term.write(`${UP}\r`); // the list loops: up from the first entry is "quit"
      expect(await exited).toBe(0);
    } finally {
      try {
        term.kill('SIGKILL');
      } catch {
        // already exited
      }
    }
    expect(fs.existsSync(path.join(project, '.claude', 'skills', 'aaa-tty', 'SKILL.md'))).toBe(true);
  });

  it('without a terminal it prints the skills table instead of asking', async () => {
    const r = await runCli(['skills'], { env: t.env, cwd: project });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^NAME\s+SCOPE\s+READ BY\s+DESCRIPTION\s+PATH\n/);
    expect(r.stdout).toMatch(/aaa-tty\s+synapse\s+-\s+A skill for the terminal test\./);
  });
});
