import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { Role, type Message, type SendMessageRequest, type StreamResponse, type Task } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory, RestTransportFactory, type Client } from '@a2a-js/sdk/client';

export type Binding = 'JSONRPC' | 'HTTP+JSON' | 'GRPC';

/** The official SDK client on the binding asked for, from the agent's card. */
export async function sdkClient(base: string, binding: Binding): Promise<Client> {
  const transports = [new JsonRpcTransportFactory(), new RestTransportFactory()];
  if (binding === 'GRPC') {
    const { GrpcTransportFactory } = await import('@a2a-js/sdk/client/grpc');
    transports.push(new GrpcTransportFactory() as never);
  }
  const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports, preferredTransports: [binding] }));
  const client = await factory.createFromUrl(base);
  if (client.transport.protocolName !== binding) throw new Error(`asked for ${binding}, got ${client.transport.protocolName}`);
  return client;
}

export function userMessage(text: string, extra: Partial<Message> = {}): Message {
  return {
    messageId: randomUUID(),
    role: Role.ROLE_USER,
    parts: [{ content: { $case: 'text', value: text }, mediaType: 'text/plain', filename: '', metadata: undefined }],
    contextId: '',
    taskId: '',
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
    ...extra,
  };
}

export function sendRequest(
  text: string,
  opts: { returnImmediately?: boolean; historyLength?: number; message?: Partial<Message>; push?: { url: string; token?: string } } = {},
): SendMessageRequest {
  return {
    tenant: '',
    message: userMessage(text, opts.message),
    configuration: {
      acceptedOutputModes: [],
      taskPushNotificationConfig: opts.push
        ? { tenant: '', id: '', taskId: '', url: opts.push.url, token: opts.push.token ?? '', authentication: undefined }
        : undefined,
      returnImmediately: opts.returnImmediately ?? false,
      ...(opts.historyLength !== undefined ? { historyLength: opts.historyLength } : {}),
    },
    metadata: undefined,
  };
}

export function asTask(result: Task | Message): Task {
  if (!('status' in result)) throw new Error(`expected a task, got a message: ${JSON.stringify(result)}`);
  return result;
}

export function artifactTextOf(task: Task): string {
  return task.artifacts.flatMap((a) => a.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : ''))).join('\n');
}

/** `kind:state` for each stream event, e.g. `task:1`, `status:2`, `artifact`. */
export function eventKinds(events: StreamResponse[]): string[] {
  return events.map((e) => {
    const p = e.payload!;
    if (p.$case === 'task') return `task:${p.value.status?.state}`;
    if (p.$case === 'statusUpdate') return `status:${p.value.status?.state}${p.value.metadata?.synapse?.outputLines ? ':output' : ''}`;
    if (p.$case === 'artifactUpdate') return 'artifact';
    return 'message';
  });
}

export async function collect(events: AsyncGenerator<StreamResponse, void, undefined>): Promise<StreamResponse[]> {
  const out: StreamResponse[] = [];
  for await (const e of events) out.push(e);
  return out;
}

/** A local push receiver: every POST body with its headers. */
export async function pushReceiver(): Promise<{ url: string; received: Array<{ headers: http.IncomingHttpHeaders; body: any }>; close: () => Promise<void> }> {
  const received: Array<{ headers: http.IncomingHttpHeaders; body: any }> = [];
  const server = http.createServer((req, res) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (text += c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: JSON.parse(text) });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}/hook`, received, close: () => new Promise((r) => server.close(() => r())) };
}

/** Raw JSON-RPC over fetch, for malformed requests the SDK client would never send. */
export async function rawRpc(url: string, body: string, headers: Record<string, string> = { 'a2a-version': '1.0' }): Promise<{ status: number; body: any }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}
