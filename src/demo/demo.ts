import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { requestJson } from '../a2a/http-json.js';
import { FINISHED_STATES, parsePeerTask, peerTaskText, type PeerTask } from '../a2a/wire-client.js';
import type { RegistryEntry } from '../registry/entry.js';
import { isPidAlive } from '../registry/liveness.js';
import { detachedArgs } from '../cli/detached.js';
import { launchBackground } from '../runtime/launch.js';

interface Step {
  state: string;
  at_ms: number;
}

async function until<T>(what: string, fn: () => Promise<T | null>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== null) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function stop(entry: RegistryEntry): Promise<void> {
  await requestJson(`${entry.endpoint}/shutdown`, { method: 'POST', timeoutMs: 2000 }).catch(() => undefined);
  const deadline = Date.now() + 5000;
  while (isPidAlive(entry.pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  if (isPidAlive(entry.pid)) process.kill(-entry.pid, 'SIGKILL');
}

/** Starts alice and bob in the background and waits until both take messages. */
async function startPair(env: NodeJS.ProcessEnv, started: RegistryEntry[], say: (s: string) => void) {
  const t0 = Date.now();
  const [alice, bob] = await Promise.all(
    ['alice', 'bob'].map(async (name) => {
      const { entry } = await launchBackground({ synapseArgs: detachedArgs({ profile: 'echo', cliArgs: [], flags: { name } }), env, cwd: process.cwd() });
      started.push(entry);
      return entry;
    }),
  );
  if (!alice || !bob) throw new Error('agents did not start');
  const registeredMs = Date.now() - t0;
  say(`  started alice = ${alice.agent_id} (${alice.endpoint}) and bob = ${bob.agent_id} (${bob.endpoint}) in ${registeredMs} ms`);
  await Promise.all(
    [alice, bob].map((a) =>
      until(
        `${a.name} to finish start-up`,
        async () => {
          const r = await requestJson<{ ready_for_messages: boolean }>(`${a.endpoint}/status`);
          return r.body.ready_for_messages ? true : null;
        },
        20_000,
      ),
    ),
  );
  const readyMs = Date.now() - t0;
  say(`  both READY and through their start-up instruction after ${readyMs} ms`);
  return { alice, bob, registeredMs, readyMs };
}

/** alice's message to bob over HTTP, followed to its end; every state change with its time. */
async function roundTrip(alice: RegistryEntry, bob: RegistryEntry, text: string, say: (s: string) => void) {
  const sentAt = Date.now();
  const res = await requestJson<{ task: unknown }>(`${bob.endpoint}/tasks/send`, {
    body: {
      message: { role: 'user', parts: [{ type: 'text', text }] },
      metadata: { sender: { sender_id: alice.agent_id, sender_name: 'alice', sender_type: 'echo', sender_endpoint: alice.endpoint }, response_mode: 'wait' },
    },
  });
  const sent = res.status === 202 ? parsePeerTask(res.body.task) : null;
  if (!sent) throw new Error(`bob answered ${res.status}: ${JSON.stringify(res.body)}`);
  const acceptedMs = Date.now() - sentAt;
  say(`\n  alice -> bob  POST ${bob.endpoint}/tasks/send  (accepted in ${acceptedMs} ms, task ${sent.id})`);
  const steps: Step[] = [{ state: sent.status, at_ms: acceptedMs }];
  const done = await until<PeerTask>(
    'the task to finish',
    async () => {
      // GET /tasks/{id} answers the task itself, its status a string.
      const task = parsePeerTask((await requestJson(`${bob.endpoint}/tasks/${sent.id}`)).body);
      if (!task) return null;
      if (steps.at(-1)?.state !== task.status) steps.push({ state: task.status, at_ms: Date.now() - sentAt });
      return FINISHED_STATES.has(task.status) ? task : null;
    },
    20_000,
  );
  return { done, steps, acceptedMs };
}

/**
 * `synapse demo`: two echo agents in a throw-away HOME, one message from alice to bob over
 * HTTP, the round trip shown step by step; both agents are stopped whatever happens.
 */
export async function runDemo(opts: { json: boolean }): Promise<boolean> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'synapse-demo-'));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: home,
    SYNAPSE_REGISTRY_DIR: path.join(home, '.a2a', 'registry'),
    SYNAPSE_HOME: path.join(home, '.synapse'),
    ECHO_THINK_MS: '300',
  };
  delete env.SYNAPSE_AGENT_ID;
  // Two throw-away agents on loopback, talked to without keys: the user's binding and auth settings are not theirs.
  delete env.SYNAPSE_HOST;
  delete env.SYNAPSE_AUTH_ENABLED;
  // The demo's agents are plain loopback HTTP, whatever TLS the user's own agents use.
  delete env.SYNAPSE_USE_HTTPS;
  const say = (s: string) => {
    if (!opts.json) process.stdout.write(`${s}\n`);
  };
  const started: RegistryEntry[] = [];
  try {
    say(`Synapse demo: two built-in echo agents in a temporary registry (${env.SYNAPSE_REGISTRY_DIR})`);
    const { alice, bob, registeredMs, readyMs } = await startPair(env, started, say);
    const text = 'Hello bob, this is alice. Please echo this back.';
    const { done, steps, acceptedMs } = await roundTrip(alice, bob, text, say);
    for (const s of steps) say(`    ${String(s.at_ms).padStart(5)} ms  ${s.state}`);
    const screen = await requestJson<{ lines: string[] }>(`${bob.endpoint}/screen`);
    const delivered =
      screen.body.lines
        .filter((l) => l.startsWith('echo> A2A: [From: alice'))
        .at(-1)
        ?.slice('echo> '.length) ?? '(not on screen)';
    const artifact = peerTaskText(done);
    say(`\n  typed into bob's terminal:  ${delivered}`);
    say(`  task artifact (bob's answer): ${artifact}`);
    say(`  receipt: ${JSON.stringify(done.receipt)}`);
    const ok = done.status === 'completed' && artifact.includes(text);
    const result = {
      ok,
      agents: [alice.agent_id, bob.agent_id],
      registered_ms: registeredMs,
      ready_ms: readyMs,
      accepted_ms: acceptedMs,
      steps,
      delivered,
      artifact,
      receipt: done.receipt,
    };
    if (opts.json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    say(ok ? '\nRound trip OK. Stopping both agents.' : '\nThe round trip did not complete as expected.');
    return ok;
  } finally {
    await Promise.all(started.map(stop));
    fs.rmSync(home, { recursive: true, force: true });
    say('Stopped.');
  }
}
