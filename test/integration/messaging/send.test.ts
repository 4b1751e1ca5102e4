import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BIN,
  ROOT,
  artifactText,
  cleanupAll,
  freePort,
  getJson,
  runCli,
  startHeadless,
  startNonReplying,
  tempHome,
  waitFor,
  waitForTask,
  type AgentHandle,
} from '../../support/synapse.js';

/**
 * Spawn smoke tests: `bin/synapse.js send / interrupt / reply / broadcast` parse their arguments,
 * read real stdin, find the sender through the real process ancestry and exit with the
 * documented codes through `main`. What each command does is tested in-process in
 * test/integration/cli/messaging.test.ts.
 */

const t = tempHome();
let bob: AgentHandle;

beforeAll(async () => {
  bob = await startHeadless('echo', { env: t.env, args: ['--name', 'bob'] });
}, 30_000);

afterAll(async () => {
  await cleanupAll();
  t.cleanup();
});

describe('synapse send / interrupt / reply / broadcast (spawned)', () => {
  it('--wait prints only the explicit reply on stdout', async () => {
    const r = await runCli(['send', 'bob', 'ping from a script', '--wait'], { env: t.env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('ECHO: A2A: [REPLY EXPECTED] ping from a script\n');
  });

  it('reads the message from real stdin with --stdin', async () => {
    const fromStdin = await runCli(['send', 'bob', '--stdin', '--silent', '--json'], { env: t.env, input: 'from stdin\nsecond line' });
    expect(fromStdin.code, fromStdin.stderr).toBe(0);
    expect(artifactText(await waitForTask(bob.endpoint, JSON.parse(fromStdin.stdout).task_id))).toBe('ECHO: A2A: from stdin\nsecond line');
  });

  it('detects the sender from process ancestry: a command run two processes below an agent speaks for it', async () => {
    // Like a shell tool under an agent's CLI: node (the "agent") -> node -> synapse send. The
    // "agent" is a registry entry of the test's own, not a running agent's, so that no
    // heartbeat of a real agent rewrites its pid while the command reads it.
    const inner = `require('child_process').execFileSync(process.execPath, [${JSON.stringify(BIN)}, 'send', 'bob', 'by ancestry', '--silent', '--json'], {stdio: 'inherit'})`;
    const outer = `require('child_process').execFileSync(process.execPath, ['-e', ${JSON.stringify(inner)}], {stdio: 'inherit'})`;
    const port = await freePort();
    const agentId = `synapse-echo-${port}`;
    const file = path.join(t.env.SYNAPSE_REGISTRY_DIR!, `${agentId}.json`);
    const bobEntry = JSON.parse(fs.readFileSync(path.join(t.env.SYNAPSE_REGISTRY_DIR!, `${bob.agentId}.json`), 'utf8'));
    // Registered right after the spawn, long before the grandchild starts and reads the registry.
    const child = spawn(process.execPath, ['-e', outer], { env: t.env, cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    fs.writeFileSync(
      file,
      JSON.stringify({
        ...bobEntry,
        agent_id: agentId,
        name: 'carol',
        port,
        endpoint: `http://127.0.0.1:${port}`,
        pid: child.pid,
        pid_starttime: null, // bob's start time is not this process's
        heartbeat_at: new Date().toISOString(),
      }),
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const code = await new Promise((r) => child.once('close', r));
    fs.rmSync(file, { force: true });
    expect(code, err).toBe(0);
    const sent = JSON.parse(out);
    expect((await waitForTask(bob.endpoint, sent.task_id)).metadata.sender).toMatchObject({ sender_id: agentId, sender_name: 'carol' });
  });

  it('interrupt sends with priority 4 and no reply marker', async () => {
    const i = await runCli(['interrupt', 'bob', 'heads up', '--json'], { env: t.env });
    expect(i.code, i.stderr).toBe(0);
    const task = await waitForTask(bob.endpoint, JSON.parse(i.stdout).task_id);
    expect(task.priority).toBe(4);
    expect(artifactText(task)).toBe('ECHO: A2A: heads up');
  });

  it('reply --fail: send --wait exits 5 with the failed task and its REPLY_FAILED error', async () => {
    const quiet = await startNonReplying('quiet', { env: t.env });
    const waiting = runCli(['send', 'quiet', 'migrate the database', '--wait', '--json'], { env: t.env });
    await waitFor(async () => ((await getJson(`${quiet.endpoint}/reply-stack/list`)).body.targets as unknown[]).length === 1, 10_000, 'the waiting message');
    const failed = await runCli(['reply', '--fail', 'no credentials for the database', '--from', 'quiet'], { env: t.env });
    expect(failed.code, failed.stderr).toBe(0);
    expect(failed.stdout).toMatch(/^reported the failure to the sender \(task [0-9a-f]{8}\)\n$/);
    const r = await waiting;
    expect(r.code).toBe(5);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'failed', error: { code: 'REPLY_FAILED', message: 'no credentials for the database' } });
    expect(r.stderr).toContain('ended failed: REPLY_FAILED - no credentials for the database');
    await quiet.stop();
  });

  it('exits with the documented codes through main, and send --help shows examples', async () => {
    const none = await runCli(['send', 'nobody', 'x', '--silent'], { env: t.env });
    expect(none.code).toBe(3);
    expect(none.stderr).toContain('no agent matches "nobody"');
    const empty = await runCli(['send', 'x', '   '], { env: t.env });
    expect([empty.code, empty.stderr]).toEqual([1, 'synapse: the message is empty: give it as an argument, with --message-file F or with --stdin\n']);
    const noType = await runCli(['broadcast', 'x', '--type', 'codex'], { env: t.env });
    expect(noType.code).toBe(3);
    expect(noType.stderr).toContain(`no other agent runs in ${ROOT.replace(/\/$/, '')} of type codex`);
    const ghost = await runCli(['reply', 'an answer', '--from', 'ghost'], { env: t.env });
    expect(ghost.code).toBe(1);
    expect(ghost.stderr).toContain('agent ghost is not running');
    const help = await runCli(['send', '--help'], { env: t.env });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Examples:\n  synapse send codex "review src/app.ts" --wait');
    // The original's short form of --from.
    expect(help.stdout).toMatch(/-f, --from <agent> +send as this agent/);
    const short = await runCli(['send', 'nobody', 'x', '-f', 'ghost', '--silent'], { env: t.env });
    expect(short.stderr).not.toContain('unknown option');
    expect(short.code).toBe(3);
  });
});
