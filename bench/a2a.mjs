// bench/a2a: blocking `message/send` round trips against one echo agent (think time 0) over each
// A2A binding, with the official SDK client, next to Synapse's own `/tasks/send` followed by
// polling `GET /tasks/:id` (every 5 ms) until the task is done. All in one run, interleaved per
// round so drift hits every method alike. The agent's CLI takes one message at a time, so
// requests per second is sequential throughput: 1000 / mean latency. A second table reads one
// finished task (GetTask vs GET /tasks/:id): that is the protocol layers' own cost, without the
// CLI round trip.
// Usage: npm run build && node bench/a2a.mjs [runs=50]
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory, RestTransportFactory } from '@a2a-js/sdk/client';
import { GrpcTransportFactory } from '@a2a-js/sdk/client/grpc';
import { fmt, percentile, sendMessageRequest, startAgent, tempEnv } from './lib.mjs';

const runs = Number(process.argv[2] ?? 50);
const WARMUP = 3;
const { env, cleanup } = tempEnv({ ECHO_THINK_MS: '0' });
const agent = await startAgent(env, ['--name', 'bench']);

async function client(binding) {
  const transports = [new JsonRpcTransportFactory(), new RestTransportFactory(), new GrpcTransportFactory()];
  const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports, preferredTransports: [binding] }));
  for (let i = 0; i < 100; i++) {
    const c = await factory.createFromUrl(agent.endpoint);
    if (c.transport.protocolName === binding) return c;
    await new Promise((r) => setTimeout(r, 20)); // gRPC joins the card once it listens
  }
  throw new Error(`no ${binding} binding on the card`);
}

function answerOf(task) {
  return task.artifacts.flatMap((a) => a.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : ''))).join('');
}

async function viaA2a(c, text) {
  const task = await c.sendMessage(sendMessageRequest(text));
  if (!answerOf(task).includes(text)) throw new Error(`unexpected answer: ${JSON.stringify(task)}`);
}

async function viaSynapse(text) {
  const res = await fetch(`${agent.endpoint}/tasks/send`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ message: { role: 'user', parts: [{ type: 'text', text }] }, metadata: { response_mode: 'wait' } }),
  });
  const { task } = await res.json();
  for (;;) {
    // GET /tasks/{id}: the task itself, its status a string, artifacts {type, data}.
    const t = await (await fetch(`${agent.endpoint}/tasks/${task.id}`)).json();
    if (['completed', 'failed', 'canceled'].includes(t.status)) {
      if (
        t.status !== 'completed' ||
        !t.artifacts
          .map((a) => (typeof a.data === 'string' ? a.data : ''))
          .join('')
          .includes(text)
      )
        throw new Error(`unexpected task: ${JSON.stringify(t)}`);
      return;
    }
    await new Promise((r) => setTimeout(r, 5));
  }
}

try {
  const methods = [
    ['A2A JSON-RPC  message/send', await client('JSONRPC')],
    ['A2A HTTP+JSON message:send', await client('HTTP+JSON')],
    ['A2A gRPC      SendMessage ', await client('GRPC')],
    ['/tasks/send + poll GET /tasks/:id', null],
  ];
  const times = methods.map(() => []);
  for (let i = 0; i < WARMUP + runs; i++) {
    for (const [m, [, c]] of methods.entries()) {
      const text = `bench ${m} ${i}`;
      const t0 = performance.now();
      if (c) await viaA2a(c, text);
      else await viaSynapse(text);
      if (i >= WARMUP) times[m].push(performance.now() - t0);
    }
  }
  console.log(`bench/a2a: ${runs} blocking round trips per method (after ${WARMUP} warm-up), one echo agent, ECHO_THINK_MS=0, SDK client for A2A`);
  for (const [m, [name]] of methods.entries()) {
    const t = times[m];
    const mean = t.reduce((a, b) => a + b, 0) / t.length;
    console.log(
      `  ${name.padEnd(34)} p50 ${fmt(percentile(t, 50)).padStart(9)}  p95 ${fmt(percentile(t, 95)).padStart(9)}  ${(1000 / mean).toFixed(1).padStart(6)} req/s`,
    );
  }

  const reads = runs * 4;
  const done = await methods[0][1].sendMessage(sendMessageRequest('a task to read'));
  const readers = [
    ['A2A JSON-RPC  GetTask', () => methods[0][1].getTask({ tenant: '', id: done.id })],
    ['A2A HTTP+JSON GET /tasks/{id}', () => methods[1][1].getTask({ tenant: '', id: done.id })],
    ['A2A gRPC      GetTask', () => methods[2][1].getTask({ tenant: '', id: done.id })],
    ['GET /tasks/:id', async () => (await fetch(`${agent.endpoint}/tasks/${done.id}`)).json()],
  ];
  const readTimes = readers.map(() => []);
  for (let i = 0; i < WARMUP + reads; i++) {
    for (const [m, [, read]] of readers.entries()) {
      const t0 = performance.now();
      await read();
      if (i >= WARMUP) readTimes[m].push(performance.now() - t0);
    }
  }
  console.log(`reading one finished task, ${reads} times per method:`);
  for (const [m, [name]] of readers.entries()) {
    const t = readTimes[m];
    const mean = t.reduce((a, b) => a + b, 0) / t.length;
    console.log(
      `  ${name.padEnd(34)} p50 ${fmt(percentile(t, 50)).padStart(9)}  p95 ${fmt(percentile(t, 95)).padStart(9)}  ${(1000 / mean).toFixed(1).padStart(6)} req/s`,
    );
  }
} finally {
  await agent.stop();
  cleanup();
}
