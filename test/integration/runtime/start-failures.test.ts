import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { cleanupAll, freePort, getJson, runCli, startHeadless, tempHome, waitFor, type RunResult } from '../../support/synapse.js';

/** Whether something still listens on the port. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = net.connect({ port, host: '127.0.0.1' });
    sock.once('connect', () => {
      sock.destroy();
      resolve(true);
    });
    sock.once('error', () => resolve(false));
  });
}

describe('an agent whose start goes wrong says so and does not hang', () => {
  const t = tempHome();
  afterEach(cleanupAll);
  afterAll(() => t.cleanup());

  it('a corrupt task database stops the start with an error, and the claimed port is released', async () => {
    const port = await freePort();
    const stateDir = path.join(t.home, '.synapse', 'agents');
    fs.mkdirSync(stateDir, { recursive: true });
    fs.writeFileSync(path.join(stateDir, `synapse-echo-${port}.db`), 'this is not a database '.repeat(200));
    const r = await runCli(['echo', '--headless', '--port', String(port)], { env: t.env, timeoutMs: 15_000 });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/not a database/);
    expect(await listening(port)).toBe(false);
    const registry = path.join(t.home, '.a2a', 'registry');
    expect(fs.existsSync(registry) ? fs.readdirSync(registry).filter((n) => n.endsWith('.json')) : []).toEqual([]);
  });

  it('an unreadable .synapse/default.md is logged and the agent takes messages without it', async () => {
    const project = fs.mkdtempSync(path.join(t.home, 'project-'));
    // A directory where the template should be: it exists but cannot be read as a file.
    fs.mkdirSync(path.join(project, '.synapse', 'default.md'), { recursive: true });
    const a = await startHeadless('echo', { env: t.env, cwd: project });
    await waitFor(async () => (await getJson(`${a.endpoint}/status`)).body.ready_for_messages === true, 10_000, 'ready for messages');
    const events = a
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { level: string; msg: string });
    expect(events).toContainEqual(
      expect.objectContaining({
        level: 'error',
        msg: expect.stringContaining(`cannot read the start-up instruction ${path.join(project, '.synapse', 'default.md')}`) as string,
      }),
    );
    expect(events).toContainEqual(expect.objectContaining({ msg: 'accepting messages (the start-up instruction could not be read)' }));
    const { body } = await getJson(`${a.endpoint}/tasks?limit=10`);
    expect((body as Array<{ metadata: { kind?: string } }>).filter((x) => x.metadata.kind === 'bootstrap')).toEqual([]);
  });

  it('a CLI that exits during start-up: `synapse start` exits 2 with its exit code and last screen lines; list and logs say why it went away', async () => {
    const port = await freePort();
    const r = await runCli(['start', 'echo', '--port', String(port), '--', '--exit-at-start', '42'], { env: t.env, timeoutMs: 30_000 });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('echo exited (exit code 42 during start-up); its last lines on screen:');
    expect(r.stderr).toContain('  | Cannot start: asked to exit at start-up with code 42.');
    expect(r.stderr).toMatch(/\(full log: .*start-.*\.log\)/);

    const agentId = `synapse-echo-${port}`;
    const list = await runCli(['list'], { env: t.env });
    expect(list.stdout).toContain('No agents running');
    expect(list.stdout).toMatch(
      new RegExp(`Exited recently.*\\n  ${agentId} .* exit code 42 during start-up: Cannot start: asked to exit at start-up with code 42\\.`, 's'),
    );
    // list --json stays the array of live entries.
    expect(JSON.parse((await runCli(['list', '--json'], { env: t.env })).stdout)).toEqual([]);

    const logs = await runCli(['logs', `echo-${port}`], { env: t.env });
    expect(logs.code, logs.stderr).toBe(0);
    expect(logs.stdout).toContain(`${agentId} is gone: its CLI exited`);
    expect(logs.stdout).toContain('cli exited (code 42) during start-up; its last lines on screen:\n  | Echo agent');
    const screen = await runCli(['logs', agentId, '--screen'], { env: t.env });
    expect(screen.stdout.trimEnd().split('\n').at(-1)).toBe('Cannot start: asked to exit at start-up with code 42.');
  });
});

/** A stand-in for a real CLI on PATH: a node script named like it (its profile runs it). */
function fakeCli(dir: string, name: string, body: string[]): void {
  fs.writeFileSync(path.join(dir, name), ['#!/usr/bin/env node', ...body, ''].join('\n'), { mode: 0o755 });
}

/** Gemini CLI 0.61.0's input box, which the gemini profile reads as READY. */
const GEMINI_BOX = ['▄'.repeat(60), ' >   Type your message or @path/to/file', '▀'.repeat(60)].join('\\r\\n');

describe('the wrapped CLI runs as if a person started it', () => {
  const t = tempHome();
  const bin = fs.mkdtempSync(path.join(t.home, 'bin-'));
  const env = { ...t.env, PATH: `${bin}:${process.env.PATH}` };
  afterEach(cleanupAll);
  afterAll(() => t.cleanup());

  /** The registry entry `synapse start --json` printed. */
  function started(r: RunResult): { agent_id: string; status: string; log_file: string } {
    expect(r.code, r.stderr).toBe(0);
    return JSON.parse(r.stdout) as { agent_id: string; status: string; log_file: string };
  }

  it('gemini starts under CI=true and GITHUB_ACTIONS=true: they are not passed on (Gemini CLI takes them for headless mode and exits 42)', async () => {
    fakeCli(bin, 'gemini', [
      '// As Gemini CLI 0.61.0 does (isHeadlessMode): CI=true or GITHUB_ACTIONS=true means no TUI.',
      "if (process.env.CI === 'true' || process.env.GITHUB_ACTIONS === 'true') {",
      "  process.stdout.write('No input provided via stdin. Input can be provided by piping data into gemini or using the --prompt option.\\r\\n');",
      '  process.exit(42);',
      '}',
      `process.stdout.write('${GEMINI_BOX}');`,
      'setInterval(() => {}, 1000);',
    ]);
    const port = await freePort();
    const r = await runCli(['start', 'gemini', '--port', String(port), '--json'], { env: { ...env, CI: 'true', GITHUB_ACTIONS: 'true' }, timeoutMs: 30_000 });
    const entry = started(r);
    try {
      expect(entry.status).not.toBe('STARTING');
      const log = fs.readFileSync(entry.log_file, 'utf8');
      expect(log).toContain('not passed to gemini: CI, GITHUB_ACTIONS');
    } finally {
      await runCli(['kill', entry.agent_id, '-f'], { env });
    }
  });

  it('codex: `-- --no-daemon` (which the profile passes already) reaches Codex once (it exits 2 on a repeated flag)', async () => {
    fakeCli(bin, 'codex', [
      '// As Codex 0.171.0 (clap) does: a flag given twice is an error, exit 2.',
      'const args = process.argv.slice(2);',
      "const twice = args.find((a, i) => a.startsWith('--') && args.indexOf(a) !== i);",
      'if (twice) {',
      "  process.stdout.write(`error: the argument '${twice}' cannot be used multiple times\\r\\n`);",
      '  process.exit(2);',
      '}',
      "process.stdout.write(`args: ${args.join(' ')}\\r\\n\\r\\n› Ask Codex to do anything\\r\\n`);",
      'setInterval(() => {}, 1000);',
    ]);
    const port = await freePort();
    const r = await runCli(['start', 'codex', '--port', String(port), '--json', '--', '--no-daemon', '-c', 'model="o3"'], { env, timeoutMs: 30_000 });
    const entry = started(r);
    try {
      expect(entry.status).not.toBe('STARTING');
      const screen = await runCli(['logs', entry.agent_id, '--screen'], { env });
      expect(screen.stdout).toContain('args: -c sandbox_workspace_write.network_access=true --no-daemon -c model="o3"');
      expect(fs.readFileSync(entry.log_file, 'utf8')).toContain('passed once: --no-daemon (the codex profile passes it, and so do the CLI args)');
    } finally {
      await runCli(['kill', entry.agent_id, '-f'], { env });
    }
  });
});
