import http from 'node:http';
import { AgentCard, TaskState, formatSSEEvent } from '@a2a-js/sdk';
import { parseLegacyAgentCard } from '@a2a-js/sdk/compat/v0_3/client';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import {
  AgentEvent,
  DefaultRequestHandler,
  InMemoryTaskStore,
  JsonRpcTransportHandler,
  defaultServerCallContextBuilder,
  type AgentExecutor,
} from '@a2a-js/sdk/server';

/** Answers every message with `plain: <text>` as the task's artifact. */
const executor: AgentExecutor = {
  execute: async (ctx, bus) => {
    const text = ctx.userMessage.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');
    const ids = { taskId: ctx.taskId, contextId: ctx.contextId };
    bus.publish(
      AgentEvent.task({
        id: ctx.taskId,
        contextId: ctx.contextId,
        status: { state: TaskState.TASK_STATE_WORKING, message: undefined, timestamp: new Date().toISOString() },
        artifacts: [],
        history: [ctx.userMessage],
        metadata: undefined,
      }),
    );
    bus.publish(
      AgentEvent.artifactUpdate({
        ...ids,
        artifact: {
          artifactId: 'answer',
          name: 'answer',
          description: '',
          parts: [{ content: { $case: 'text', value: `plain: ${text}` }, mediaType: 'text/plain', filename: '', metadata: undefined }],
          metadata: undefined,
          extensions: [],
        },
        append: false,
        lastChunk: true,
        metadata: undefined,
      }),
    );
    bus.publish(
      AgentEvent.statusUpdate({
        ...ids,
        status: { state: TaskState.TASK_STATE_COMPLETED, message: undefined, timestamp: new Date().toISOString() },
        metadata: undefined,
      }),
    );
    bus.finished();
  },
  cancelTask: async () => undefined,
};

/**
 * A plain A2A server built from the SDK alone (no Synapse code, no Express): its JSON-RPC
 * transport handler on node:http, speaking A2A 1.0 or, with `version: '0.3'`, the 0.3 dialect
 * with a 0.3-shaped card.
 */
export async function plainSdkServer(version: '1.0' | '0.3'): Promise<{ base: string; close: () => Promise<void> }> {
  const server = http.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const legacyCard = {
    protocolVersion: '0.3.0',
    name: 'Plain Legacy Agent',
    description: 'SDK-only test agent (A2A 0.3).',
    url: `${base}/rpc`,
    preferredTransport: 'JSONRPC',
    version: '1.0.0',
    capabilities: { streaming: true },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
  };
  const card: AgentCard =
    version === '0.3'
      ? parseLegacyAgentCard(legacyCard)
      : AgentCard.fromJSON({
          name: 'Plain Agent',
          description: 'SDK-only test agent.',
          version: '1.0.0',
          supportedInterfaces: [{ url: `${base}/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
          capabilities: { streaming: true },
          defaultInputModes: ['text/plain'],
          defaultOutputModes: ['text/plain'],
          skills: [],
        });
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
  const rpc = version === '0.3' ? new LegacyJsonRpcTransportHandler(handler) : new JsonRpcTransportHandler(handler);
  server.on('request', (req, res) => {
    if (req.method === 'GET' && req.url === '/.well-known/agent-card.json') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(version === '0.3' ? legacyCard : AgentCard.toJSON(card)));
      return;
    }
    if (req.method !== 'POST' || req.url !== '/rpc') {
      res.writeHead(404).end();
      return;
    }
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => void answer());
    const answer = async () => {
      const v = req.headers['a2a-version'];
      const context = defaultServerCallContextBuilder({
        extensions: undefined,
        user: undefined,
        headers: req.headers,
        requestedVersion: typeof v === 'string' ? v : version,
      });
      const out = await rpc.handle(body, context);
      if (Symbol.asyncIterator in (out as object)) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        for await (const e of out as AsyncGenerator<unknown>) res.write(formatSSEEvent(e));
        res.end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(out));
    };
  });
  return { base, close: () => new Promise((r) => server.close(() => r())) };
}
