import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupAll, runCli, startHeadless, tempHome, waitFor, type AgentHandle } from '../support/synapse.js';

/**
 * A machine shared by several people (issue 15 §2): with auth on and loopback not trusted, the
 * first agent creates the per-user key file (0600), a caller without it gets 401 even from
 * loopback, and the user's own `synapse` commands (send --wait, the answer posted back to the
 * asking agent, stop) work with nothing configured. Real processes, a temporary HOME.
 */

let home: ReturnType<typeof tempHome>;
let env: NodeJS.ProcessEnv;
let keyFile: string;
let bob: AgentHandle;
let alice: AgentHandle;

const key = () => fs.readFileSync(keyFile, 'utf8').trim();
const withKey = (): Record<string, string> => (fs.existsSync(keyFile) ? { 'x-api-key': key() } : {});

beforeAll(async () => {
  home = tempHome();
  env = { ...home.env, SYNAPSE_AUTH_ENABLED: 'true', SYNAPSE_ALLOW_LOCALHOST: 'false' };
  keyFile = path.join(env.SYNAPSE_HOME!, 'api-key');
  bob = await startHeadless('echo', { env, args: ['--name', 'bob'], statusHeaders: withKey });
  alice = await startHeadless('echo', { env, args: ['--name', 'alice'], statusHeaders: withKey });
}, 60_000);
afterAll(async () => {
  await cleanupAll();
  home?.cleanup();
});

describe('auth on, loopback not trusted: the per-user key', () => {
  it('is created on first use, 0600, and is the one key both agents take', () => {
    expect(fs.statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(key()).toMatch(/^synapse_[A-Za-z0-9_-]{43}$/);
  });

  it('keeps out a loopback caller without it (401), not the public card', async () => {
    const bare = await fetch(`${bob.endpoint}/status`);
    const wrong = await fetch(`${bob.endpoint}/tasks`, { headers: { authorization: 'Bearer synapse_not-the-key' } });
    const keyed = await fetch(`${bob.endpoint}/status`, { headers: { authorization: `Bearer ${key()}` } });
    const card = await fetch(`${bob.endpoint}/.well-known/agent.json`);
    const cardBody = (await card.json()) as { security?: unknown };
    expect([bare.status, wrong.status, keyed.status, card.status]).toEqual([401, 401, 200, 200]);
    expect(((await bare.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
    expect(cardBody.security).toEqual([{ apiKey: [] }, { bearer: [] }]);
  });

  it('lets the user’s own commands through with nothing configured: send --wait, the answer back to the asking agent', async () => {
    const sent = await runCli(['send', 'bob', 'ping through auth', '--from', 'alice', '--wait', '--timeout', '20'], { env });
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.stdout).toContain('ping through auth');
    // bob posted its answer to alice's endpoint with the key: alice holds it as a task in reply.
    const answered = await waitFor(
      async () => {
        const res = await fetch(`${alice.endpoint}/tasks`, { headers: withKey() });
        const tasks = (await res.json()) as Array<{ metadata?: { in_reply_to?: string } }>;
        return tasks.some((t) => typeof t.metadata?.in_reply_to === 'string');
      },
      15_000,
      'the answer to reach alice',
    );
    expect(answered).toBe(true);
  }, 40_000);

  it('never writes the key to an agent’s output or the registry', () => {
    const registry = fs.readdirSync(env.SYNAPSE_REGISTRY_DIR!).map((f) => fs.readFileSync(path.join(env.SYNAPSE_REGISTRY_DIR!, f), 'utf8'));
    expect([bob.output(), alice.output(), ...registry].filter((text) => text.includes(key()))).toEqual([]);
  });

  it('stops an agent with `synapse stop` (an admin route: the per-user key is the owner’s)', async () => {
    const stopped = await runCli(['stop', 'bob'], { env });
    expect(stopped.code, stopped.stderr).toBe(0);
    expect(stopped.stderr).not.toContain('SIGTERM');
    await waitFor(() => bob.child.exitCode !== null || bob.child.signalCode !== null, 15_000, 'bob to exit');
  }, 30_000);
});
