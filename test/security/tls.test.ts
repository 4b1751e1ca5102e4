import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { artifactTextOf, asTask, sendRequest } from '../integration/a2a/sdk-client.js';
import { artifactText, runCli, tempHome, textMessage, waitFor } from '../support/synapse.js';
import { CERTS, httpsJson, startTlsAgent, type TlsAgent } from './support/tls-agent.js';

/**
 * Issue 15 §4: an agent started with SYNAPSE_USE_HTTPS serves HTTP and gRPC over TLS only, its
 * registry entry says https, and every peer client (the CLI, another agent answering) reaches it
 * by trusting its certificate through SYNAPSE_TLS_CA. The two agents have different self-signed
 * certificates (test/fixtures/tls/), and each trusts the other only through that setting.
 */

const t = tempHome();
let alice: TlsAgent;
let bob: TlsAgent;
/** What the CLI runs with: both certificates in one CA file, and no TLS of its own. */
let cliEnv: NodeJS.ProcessEnv;

async function finished(agent: TlsAgent, ca: string, id: string): Promise<any> {
  return waitFor(
    async () => {
      const { body } = await httpsJson(`${agent.endpoint}/tasks/${id}`, { ca });
      return ['completed', 'failed', 'canceled'].includes(body?.status) ? body : null;
    },
    15_000,
    `task ${id} to finish`,
  );
}

beforeAll(async () => {
  const bundle = path.join(t.home, 'ca-bundle.pem');
  fs.writeFileSync(bundle, fs.readFileSync(CERTS.first.cert, 'utf8') + fs.readFileSync(CERTS.peer.cert, 'utf8'));
  cliEnv = { ...t.env, SYNAPSE_TLS_CA: bundle };
  [alice, bob] = await Promise.all([
    startTlsAgent('alice', CERTS.first, { ...t.env, SYNAPSE_TLS_CA: CERTS.peer.cert }),
    startTlsAgent('bob', CERTS.peer, { ...t.env, SYNAPSE_TLS_CA: CERTS.first.cert }),
  ]);
}, 40_000);

afterAll(async () => {
  await Promise.all([alice?.stop(), bob?.stop()]);
  t.cleanup();
});

describe('an agent over TLS (SYNAPSE_USE_HTTPS)', () => {
  it('registers an https endpoint, serves its card over TLS, and nothing in plain HTTP', async () => {
    const entry = JSON.parse(fs.readFileSync(path.join(t.env.SYNAPSE_REGISTRY_DIR!, `synapse-echo-${alice.port}.json`), 'utf8'));
    expect(entry.endpoint).toBe(`https://127.0.0.1:${alice.port}`);

    const card = await httpsJson(`${alice.endpoint}/.well-known/agent.json`, { ca: CERTS.first.cert });
    expect(card.status).toBe(200);
    expect(JSON.stringify(card.body)).toContain(`https://127.0.0.1:${alice.port}`);
    expect(JSON.stringify(card.body)).not.toContain(`http://127.0.0.1:${alice.port}`);
    // The start-up instruction points the CLI at the https card too.
    const instruction = await runCli(['instructions', 'send', 'alice', '--preview'], { env: cliEnv });
    expect(instruction.stdout).toContain(`curl -s https://127.0.0.1:${alice.port}/.well-known/agent.json`);

    const plain = await fetch(`http://127.0.0.1:${alice.port}/status`).then(
      (r) => `answered ${r.status}`,
      () => 'refused',
    );
    expect(plain).toBe('refused');
    // A client that does not trust the certificate gets no connection either.
    await expect(httpsJson(`${alice.endpoint}/status`, { ca: CERTS.peer.cert })).rejects.toThrow(/self-signed certificate/);
  });

  it('takes /tasks/send over https and completes the task', async () => {
    const sent = await httpsJson(`${alice.endpoint}/tasks/send`, { ca: CERTS.first.cert, body: textMessage('hello over tls') });
    expect(sent.status).toBe(202);
    const task = await finished(alice, CERTS.first.cert, sent.body.task.id);
    expect(task.status).toBe('completed');
    expect(artifactText(task)).toBe('ECHO: A2A: hello over tls');
  });

  it('`synapse send --wait` reaches it through SYNAPSE_TLS_CA; without it the error says what to set', async () => {
    const ok = await runCli(['send', 'alice', 'ping over tls', '--wait'], { env: cliEnv });
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toBe('ECHO: A2A: [REPLY EXPECTED] ping over tls\n');

    const untrusted = await runCli(['send', 'alice', 'ping without trust', '--wait'], { env: t.env });
    expect(untrusted.code).not.toBe(0);
    expect(untrusted.stderr).toContain(`cannot reach https://127.0.0.1:${alice.port}/tasks/send-priority`);
    expect(untrusted.stderr).toContain('set SYNAPSE_TLS_CA');
  });

  it('an agent posts its answer to another agent over https, trusting it through SYNAPSE_TLS_CA', async () => {
    const sent = await runCli(['send', 'bob', 'question from alice', '--from', 'alice', '--json'], { env: cliEnv });
    expect(sent.code, sent.stderr).toBe(0);
    const taskId: string = JSON.parse(sent.stdout).task_id;
    const asked = await finished(bob, CERTS.peer.cert, taskId);
    expect(artifactText(asked)).toContain('question from alice');
    // Bob's answer arrives at alice as a task of its own, tied to the question.
    const answer = await waitFor(
      async () => {
        const list = await httpsJson(`${alice.endpoint}/tasks?limit=50`, { ca: CERTS.first.cert });
        return (list.body as any[]).find((task) => task.metadata?.in_reply_to === taskId);
      },
      15_000,
      "bob's answer at alice",
    );
    expect(answer.metadata.sender.sender_endpoint).toBe(bob.endpoint);
    const delivered = await finished(alice, CERTS.first.cert, answer.id);
    expect(artifactText(delivered)).toContain('question from alice');
  });

  it('refuses to start with TLS on and no usable certificate, naming what to fix', async () => {
    const port = String(alice.port + 1);
    const noCert = await runCli(['echo', '--headless', '--port', port], { env: { ...t.env, SYNAPSE_USE_HTTPS: '1' } });
    expect(noCert.code).not.toBe(0);
    expect(noCert.stderr).toContain('SYNAPSE_USE_HTTPS is on but SYNAPSE_TLS_CERT is not set');
    const wrongKey = await runCli(['echo', '--headless', '--port', port], {
      env: { ...t.env, SYNAPSE_USE_HTTPS: '1', SYNAPSE_TLS_CERT: CERTS.first.cert, SYNAPSE_TLS_KEY: CERTS.peer.key },
    });
    expect(wrongKey.code).not.toBe(0);
    expect(wrongKey.stderr).toContain('SYNAPSE_TLS_CERT/SYNAPSE_TLS_KEY do not make a TLS server');
  });

  it('serves gRPC on port + 1000 over TLS with the same certificate, and refuses a plaintext client', async () => {
    const card = await httpsJson(`${alice.endpoint}/.well-known/agent-card.json`, { ca: CERTS.first.cert });
    const grpcUrl = card.body.supportedInterfaces.find((i: any) => i.protocolBinding === 'GRPC')?.url;
    expect(grpcUrl).toBe(`127.0.0.1:${alice.port + 1000}`);
    const grpc = await import('@grpc/grpc-js');
    const { ClientFactory, ClientFactoryOptions } = await import('@a2a-js/sdk/client');
    const { GrpcTransportFactory } = await import('@a2a-js/sdk/client/grpc');
    const clientWith = (credentials: InstanceType<typeof grpc.ChannelCredentials> | undefined) =>
      new ClientFactory(
        ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
          transports: [new GrpcTransportFactory(credentials ? { grpcChannelCredentials: credentials } : {})],
          preferredTransports: ['GRPC'],
        }),
      ).createFromAgentCard(card.body);

    const trusted = await clientWith(grpc.credentials.createSsl(fs.readFileSync(CERTS.first.cert)));
    const task = asTask(await trusted.sendMessage(sendRequest('hello over grpc tls')));
    expect(artifactTextOf(task)).toContain('hello over grpc tls');

    const plaintext = await clientWith(undefined);
    await expect(plaintext.sendMessage(sendRequest('plaintext grpc'))).rejects.toThrow();
  });
});
