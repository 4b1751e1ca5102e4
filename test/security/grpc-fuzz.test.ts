import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as grpc from '@grpc/grpc-js';
import { A2AService } from '@a2a-js/sdk/server/grpc';
import { SendMessageRequest, GetTaskRequest } from '@a2a-js/sdk';
import { cleanupAll, getJson, postJson, startHeadless, tempHome, textMessage, waitFor, waitForTask, type AgentHandle } from '../support/synapse.js';
import { Gen } from './support/fuzz-gen.js';
import { sendRaw } from './support/raw-http.js';

/**
 * The gRPC port (the agent's port + 1000) under random and schema-guided bodies: valid A2A
 * requests with bytes flipped, cut, repeated or spliced; random bytes; every method, unary and
 * streaming; a message over the size limit; bytes that are not HTTP/2 at all. No hang, no crash;
 * afterwards the agent completes a normal task over gRPC and over HTTP.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 915_733_201);
const COUNT = Number(process.env.GRPC_FUZZ_COUNT ?? 2_000);
const CONCURRENCY = 8;
const HANG_MS = 10_000;

const t = tempHome();
let a: AgentHandle;
let client: grpc.Client;
const address = () => `127.0.0.1:${a.port + 1000}`;

beforeAll(async () => {
  a = await startHeadless('echo', { env: { ...t.env, ECHO_THINK_MS: '0', SYNAPSE_MAX_BODY_BYTES: String(64 * 1024) } });
  // gRPC starts right after HTTP; the card lists it once it listens.
  await waitFor(
    async () => (await getJson(`${a.endpoint}/.well-known/agent-card.json`)).body.supportedInterfaces.some((i: any) => i.protocolBinding === 'GRPC'),
    10_000,
    'gRPC in the card',
  );
  client = new grpc.Client(address(), grpc.credentials.createInsecure());
});
afterAll(async () => {
  client?.close();
  await cleanupAll();
  t.cleanup();
});

type Def = { path: string; responseStream: boolean; requestSerialize: (x: any) => Buffer };
const METHODS = Object.values(A2AService) as Def[];
const identity = (b: Buffer) => b;
/** The details of every INTERNAL answer: grpc-js's own for bytes that are no protobuf is fine, anything else is a bug. */
const internals: string[] = [];
const UNDECODABLE = 'Error deserializing request';

/** Valid requests of the service, serialized: the templates the schema-guided bodies start from. */
function templates(taskId: string): Buffer[] {
  const send = A2AService.sendMessage.requestSerialize(
    SendMessageRequest.fromJSON({
      message: { messageId: 'fz-1', role: 'ROLE_USER', parts: [{ text: 'fuzz [[wait: 0]]' }] },
      configuration: { returnImmediately: true },
    }),
  );
  const get = A2AService.getTask.requestSerialize(GetTaskRequest.fromJSON({ id: taskId }));
  return [send, get];
}

function body(g: Gen, seeds: Buffer[]): Buffer {
  const base = Buffer.from(g.pick(seeds));
  switch (g.int(6)) {
    case 0: // random bytes
      return Buffer.from(Array.from({ length: g.int(300) }, () => g.int(256)));
    case 1: // bytes flipped
      for (let i = 0; i < 1 + g.int(4); i++) base[g.int(base.length)] = g.int(256);
      return base;
    case 2: // cut short
      return base.subarray(0, g.int(base.length));
    case 3: // a length prefix that lies
      base[1] = 0xff;
      return base;
    case 4: // repeated (a field given many times)
      return Buffer.concat(Array.from({ length: 2 + g.int(50) }, () => base));
    default: // two requests spliced
      return Buffer.concat([base.subarray(0, g.int(base.length)), Buffer.from(g.pick(seeds))]);
  }
}

/** The A2A version header gRPC clients send; the fuzz sometimes leaves it out or garbles it. */
function versionMetadata(version: string | null = '1.0'): grpc.Metadata {
  const m = new grpc.Metadata();
  if (version !== null) m.set('a2a-version', version);
  return m;
}

function call(def: Def, payload: Buffer, meta: grpc.Metadata = versionMetadata()): Promise<number> {
  return new Promise((resolve, reject) => {
    const deadline = new Date(Date.now() + HANG_MS);
    const hang = () => reject(new Error(`${def.path}: no answer within ${HANG_MS} ms`));
    if (!def.responseStream) {
      client.makeUnaryRequest(def.path, identity, identity, payload, meta, { deadline }, (err) => {
        if (err?.code === grpc.status.DEADLINE_EXCEEDED) hang();
        else {
          if (err?.code === grpc.status.INTERNAL) internals.push(err.details);
          resolve(err ? err.code : grpc.status.OK);
        }
      });
      return;
    }
    // A stream that opens is an answer; its events are not this test's concern.
    const stream = client.makeServerStreamRequest(def.path, identity, identity, payload, meta, { deadline });
    stream.once('data', () => stream.cancel());
    stream.on('error', (err: grpc.ServiceError) => {
      if (err.code === grpc.status.DEADLINE_EXCEEDED) hang();
      else {
        if (err.code === grpc.status.INTERNAL) internals.push(err.details);
        resolve(err.code);
      }
    });
    stream.on('end', () => resolve(grpc.status.OK));
  });
}

describe(`gRPC fuzz: ${COUNT} generated calls (FUZZ_SEED=${SEED})`, () => {
  it('no hang, no crash; a message over the size limit is RESOURCE_EXHAUSTED; the agent still completes a task afterwards', async () => {
    const g = new Gen(SEED);
    const seeded = await postJson(`${a.endpoint}/tasks/send`, textMessage('a task to aim at'));
    const seeds = templates(seeded.body.task.id);
    const statuses = new Map<number, number>();
    const problems: string[] = [];
    let next = 0;
    const worker = async () => {
      while (next < COUNT) {
        const i = next++;
        const def = g.pick(METHODS);
        try {
          const version = g.chance(0.85) ? '1.0' : g.pick([null, '0.3', '9.9', '1.0, 0.3', ''.padEnd(300, 'x')]);
          const code = await call(def, body(g, seeds), versionMetadata(version));
          statuses.set(code, (statuses.get(code) ?? 0) + 1);
        } catch (err) {
          problems.push(`#${i}: ${(err as Error).message}`);
          if (a.child.exitCode !== null || a.child.signalCode !== null)
            throw new Error(`the agent died at #${i} (seed ${SEED}):\n${a.output().slice(-2000)}`, { cause: err });
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    console.log(`gRPC fuzz statuses: ${JSON.stringify(Object.fromEntries([...statuses].sort((x, y) => x[0] - y[0])))}`);
    expect(problems.slice(0, 20), `seed ${SEED}`).toEqual([]);
    expect([...new Set(internals.filter((d) => d !== UNDECODABLE))], `seed ${SEED}: INTERNAL from a handler`).toEqual([]);
    expect(a.child.exitCode).toBeNull();
    expect([...statuses.values()].reduce((x, y) => x + y, 0)).toBe(COUNT);

    // Over SYNAPSE_MAX_BODY_BYTES (64 KiB here): refused by size, like a 413 over HTTP.
    const big = A2AService.sendMessage.requestSerialize(
      SendMessageRequest.fromJSON({ message: { messageId: 'fz-big', role: 'ROLE_USER', parts: [{ text: 'x'.repeat(100 * 1024) }] } }),
    );
    expect(await call(A2AService.sendMessage as Def, big)).toBe(grpc.status.RESOURCE_EXHAUSTED);

    // Bytes that are not HTTP/2: the connection closes, the port stays up.
    for (const raw of ['GET / HTTP/1.1\r\n\r\n', 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x04\x08\x00\x00\x00\x00\x00', '\x16\x03\x01\x00\xa5\x01']) {
      const got = await sendRaw(a.port + 1000, Buffer.from(raw, 'latin1'), HANG_MS);
      expect(got.closed, JSON.stringify(raw)).toBe(true);
    }
    expect(a.child.exitCode).toBeNull();

    // What the fuzz queued is dropped; then a normal task over gRPC (a fresh connection) and over HTTP.
    for (const task of (await getJson(`${a.endpoint}/tasks?state=submitted&limit=1000`)).body as Array<{ id: string }>)
      await postJson(`${a.endpoint}/tasks/${task.id}/cancel`, {});
    const fresh = new grpc.Client(address(), grpc.credentials.createInsecure());
    try {
      const ok = A2AService.sendMessage.requestSerialize(
        SendMessageRequest.fromJSON({ message: { messageId: 'fz-after', role: 'ROLE_USER', parts: [{ text: 'still alive over gRPC?' }] } }),
      );
      const answer = await new Promise<Buffer>((resolve, reject) =>
        fresh.makeUnaryRequest(
          A2AService.sendMessage.path,
          identity,
          identity,
          ok,
          versionMetadata(),
          { deadline: new Date(Date.now() + 30_000) },
          (err, res) => (err ? reject(err) : resolve(res!)),
        ),
      );
      const decoded = JSON.stringify(A2AService.sendMessage.responseDeserialize(answer));
      expect(decoded).toContain('still alive over gRPC?');
    } finally {
      fresh.close();
    }
    const sent = await postJson(`${a.endpoint}/tasks/send`, textMessage('still alive over HTTP?'));
    expect((await waitForTask(a.endpoint, sent.body.task.id, 30_000)).status).toBe('completed');
  }, 180_000);
});
