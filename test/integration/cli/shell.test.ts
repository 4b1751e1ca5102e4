import type * as NodePty from 'node-pty';
import { createRequire } from 'node:module';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { BIN, cleanupAll, getJson, ROOT, runCli, startHeadless, tempHome, waitFor } from '../../support/synapse.js';

const require = createRequire(import.meta.url);
const pty = require('node-pty') as typeof NodePty;

/** Issue 20 §2: `synapse shell` routes `@agent message` and shows the answers. */
const t = tempHome();
afterEach(cleanupAll);
afterAll(() => t.cleanup());

describe('synapse shell', () => {
  it('sends @name, fans out @a,b and @all, uses the default target, and refuses plain text without one', async () => {
    const bob = await startHeadless('echo', { env: t.env, args: ['--name', 'bob'] });
    const carl = await startHeadless('echo', { env: t.env, args: ['--name', 'carl'] });
    const input = ['@bob first', '@bob,carl second', '@all third', 'no target yet', '/to carl', 'fourth', '@nobody fifth', ''].join('\n');
    const r = await runCli(['shell', '--timeout', '20'], { env: t.env, cwd: ROOT, input, timeoutMs: 30_000 });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split('\n');
    const answers = (who: string) => lines.filter((l) => l.startsWith(`[${who}] ECHO:`)).map((l) => l.slice(who.length + 3));
    expect(answers('bob').sort()).toEqual(['ECHO: A2A: [REPLY EXPECTED] first', 'ECHO: A2A: [REPLY EXPECTED] second', 'ECHO: A2A: [REPLY EXPECTED] third']);
    expect(answers('carl').sort()).toEqual(['ECHO: A2A: [REPLY EXPECTED] fourth', 'ECHO: A2A: [REPLY EXPECTED] second', 'ECHO: A2A: [REPLY EXPECTED] third']);
    expect(r.stdout).toContain('no @agent: write @<agent> <message>');
    expect(r.stdout).toContain('[nobody] target_not_found');
    // Each message is one task on its target; none was typed twice.
    for (const [agent, n] of [
      [bob, 3],
      [carl, 3],
    ] as const) {
      const tasks = ((await getJson(`${agent.endpoint}/tasks`)).body as any[]).filter((x) => x.metadata.kind === 'message');
      expect(tasks).toHaveLength(n);
    }
  });

  it('on a terminal: Tab completes agent names after @, the answer appears, exit quits', async () => {
    await startHeadless('echo', { env: t.env, args: ['--name', 'dora'] });
    const term = pty.spawn(process.execPath, [BIN, 'shell'], { name: 'xterm-256color', cols: 120, rows: 30, cwd: ROOT, env: t.env });
    let out = '';
    term.onData((d) => (out += d));
    const exited = new Promise<number>((resolve) => term.onExit((e) => resolve(e.exitCode)));
    try {
      await waitFor(() => out.includes('synapse> '), 10_000, 'the prompt');
      term.write('@do\t');
      await waitFor(() => out.includes('@dora'), 5000, 'Tab completes @do to @dora');
      term.write(' hello from a terminal\r');
      await waitFor(() => out.includes('[dora] ECHO: A2A: [REPLY EXPECTED] hello from a terminal'), 15_000, 'the answer');
      term.write('exit\r');
      expect(await exited).toBe(0);
    } finally {
      term.kill();
    }
  });
});
