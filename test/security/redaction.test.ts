import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { cleanupAll, postJson, runCli, startHeadless, tempHome, waitFor } from '../support/synapse.js';

/**
 * Issue 21 §4: credentials in messages never reach what Synapse keeps. Messages carrying each kind
 * go through a real agent (history, webhook, trace, board task, memory); then no file under the
 * state directories or the project holds any of them. The live delivery is untouched: the
 * answer printed by `send --wait` still carries them.
 */
const CONFIGURED = 'plainConfiguredValue987654';
const SECRETS: Record<string, string> = {
  bearer: 'Authorization: Bearer abcDEF123456ghiJKL789',
  'sk key': 'use sk-proj-AbCdEf1234567890abcdefXYZ',
  'github token': 'ghp_1234567890abcdefghijABCDEFGHIJ123456',
  password: 'password=hunter2hunter2',
  token: 'token=tok9f8e7d6c5b4a3',
  'private key': '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7bq9secretbody\n-----END RSA PRIVATE KEY-----',
  'configured key': `the key is ${CONFIGURED} ok`,
};
/** The part of each that must not be found anywhere. */
const NEEDLES = [
  'abcDEF123456ghiJKL789',
  'sk-proj-AbCdEf1234567890abcdefXYZ',
  'ghp_1234567890abcdefghijABCDEFGHIJ123456',
  'hunter2hunter2',
  'tok9f8e7d6c5b4a3',
  'MIIEowIBAAKCAQEA7bq9secretbody',
  CONFIGURED,
];

const t = tempHome();
const project = fs.mkdtempSync(path.join(os.tmpdir(), 'synapse-redact-'));
/** The echo CLI's own conversation files, as Claude Code's ~/.claude/projects: the CLI's, not Synapse's, so outside the scan. */
const cliOwnStore = fs.mkdtempSync(path.join(os.tmpdir(), 'synapse-redact-cli-'));
let receiver: http.Server | undefined;
afterEach(cleanupAll);
afterAll(() => {
  receiver?.close();
  t.cleanup();
  fs.rmSync(project, { recursive: true, force: true });
  fs.rmSync(cliOwnStore, { recursive: true, force: true });
});

/** Every file below `dir` (Node 20's recursive readdir with file types misses some, so walk). */
function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const full = path.join(dir, d.name);
    return d.isDirectory() ? filesUnder(full) : d.isFile() ? [full] : [];
  });
}

describe('secrets never reach history, memory, webhooks, traces or task records', () => {
  it('redacts every kind everywhere it is kept; the live answer still has them', async () => {
    const received: string[] = [];
    receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        received.push(body);
        res.end('ok');
      });
    });
    await new Promise<void>((r) => receiver!.listen(0, '127.0.0.1', r));
    const hook = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;

    const env = {
      ...t.env,
      SYNAPSE_HISTORY_ENABLED: 'true',
      ECHO_SESSION_DIR: cliOwnStore,
      SYNAPSE_LOG_FILE: path.join(t.home, '.synapse', 'logs', 'keeper.log'),
      ANTHROPIC_API_KEY: CONFIGURED,
      SYNAPSE_SCREEN_TRACE: path.join(t.home, 'trace.jsonl'),
      SYNAPSE_WEBHOOK_ALLOW_LOOPBACK: 'true',
    };
    const a = await startHeadless('echo', { env, cwd: project, args: ['--name', 'keeper'] });
    const reg = await postJson(`${a.endpoint}/webhooks`, { url: hook, events: ['task.completed'] });
    expect(reg.status, JSON.stringify(reg.body)).toBeLessThan(300);

    for (const [kind, text] of Object.entries(SECRETS)) {
      const r = await runCli(['send', 'keeper', `${kind}: ${text}`, '--wait', '--timeout', '20', '--task'], { env, cwd: project });
      expect(r.code, r.stderr).toBe(0);
      // Live: the answer (the echo of what was typed into the CLI) carries the secret whole.
      expect(r.stdout).toContain(text.split('\n')[0]!);
    }
    const mem = await runCli(['memory', 'save', 'creds', `deploy with ${SECRETS.password} and ${SECRETS['github token']}`], { env, cwd: project });
    expect(mem.code, mem.stderr).toBe(0);
    await waitFor(() => received.length >= Object.keys(SECRETS).length, 10_000, 'the webhooks');
    await a.stop();

    const files = [...filesUnder(t.home), ...filesUnder(project)];
    expect(files.some((f) => f.endsWith('history.db'))).toBe(true);
    const found: string[] = [];
    for (const f of files) {
      const bytes = fs.readFileSync(f);
      for (const n of NEEDLES) if (bytes.includes(n)) found.push(`${path.relative(t.home, f)}: ${n}`);
    }
    for (const body of received) for (const n of NEEDLES) if (body.includes(n)) found.push(`webhook body: ${n}`);
    expect(found).toEqual([]);
    // What was removed is marked.
    const history = await runCli(['history', 'list', '--json', '--limit', '20'], { env, cwd: project });
    expect(history.stdout).toContain('[REDACTED:');
  });
});
