import { randomUUID } from 'node:crypto';
import { AgentCard, Role, TaskState, type Message, type StreamResponse, type Task } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory, RestTransportFactory, type Client, type TransportFactory } from '@a2a-js/sdk/client';
import { isLegacyAgentCard, parseLegacyAgentCard } from '@a2a-js/sdk/compat/v0_3/client';
import { SynapseError } from '../errors.js';
import { aliasFromName, validateAlias, type ExternalAgent, type ExternalStore } from './external-store.js';
import { fromSdkState, sdkMessageText } from './sdk/convert.js';
import { trustExtraCaCerts, trustExtraCaCertsFor } from '../extra-ca-certs.js';

/**
 * Talking to agents outside the local registry: read and check a card (A2A 1.0 or 0.3), keep
 * it in the external store, and send through the SDK's ClientFactory, which picks the first
 * binding on the card that it speaks (JSON-RPC, HTTP+JSON, gRPC; 0.3 through the compat layer).
 * Heavy: load it with `await import()` where start-up time matters.
 */

const CARD_PATH = '/.well-known/agent-card.json';
const DEFAULT_TIMEOUT_MS = 10_000;
const KNOWN_BINDINGS = new Set(['JSONRPC', 'HTTP+JSON', 'GRPC']);

export interface ReadCard {
  cardUrl: string;
  raw: Record<string, unknown>;
  card: AgentCard;
  version: '1.0' | '0.3';
}

/** `https://host/x` → its well-known card URL; a URL to a `.json` file is taken as the card itself. */
export function cardUrlFor(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new SynapseError('invalid_input', `"${url}" is not a URL; give the agent's base URL, e.g. http://127.0.0.1:8100`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new SynapseError('invalid_input', `agent URL must use http or https, not ${u.protocol.replace(/:$/, '')}`);
  if (u.pathname.endsWith('.json')) return u.toString();
  // An agent mounted under a path keeps its card under that path.
  return `${u.origin}${u.pathname.replace(/\/+$/, '')}${CARD_PATH}`;
}

/** Checks a served card and reads it as a 1.0 card (a 0.3 card is translated by the SDK). */
export function parseCard(raw: unknown, cardUrl: string): ReadCard {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new SynapseError('invalid_input', `${cardUrl} did not return a JSON object`);
  const obj = raw as Record<string, unknown>;
  if (typeof obj.name !== 'string' || obj.name.trim() === '')
    throw new SynapseError('invalid_input', `the card at ${cardUrl} has no name; is this an A2A agent card?`);
  const legacy = isLegacyAgentCard(obj);
  if (!legacy && !Array.isArray(obj.supportedInterfaces)) {
    throw new SynapseError('invalid_input', `the card at ${cardUrl} is neither A2A 1.0 (supportedInterfaces) nor 0.3 (url + preferredTransport)`);
  }
  let card: AgentCard;
  try {
    card = legacy ? parseLegacyAgentCard(obj) : AgentCard.fromJSON(obj);
  } catch (err) {
    throw new SynapseError('invalid_input', `the card at ${cardUrl} cannot be read: ${(err as Error).message}`);
  }
  const usable = card.supportedInterfaces.filter((i) => KNOWN_BINDINGS.has(i.protocolBinding) && i.url);
  if (usable.length === 0) {
    const listed = card.supportedInterfaces.map((i) => i.protocolBinding).join(', ') || 'none';
    throw new SynapseError('invalid_input', `the card at ${cardUrl} offers no binding Synapse speaks (JSONRPC, HTTP+JSON, GRPC); it lists: ${listed}`);
  }
  return { cardUrl, raw: obj, card, version: legacy ? '0.3' : '1.0' };
}

export async function fetchCard(url: string, headers: Record<string, string> = {}, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<ReadCard> {
  const cardUrl = cardUrlFor(url);
  let res: Response;
  try {
    trustExtraCaCertsFor(cardUrl);
    res = await fetch(cardUrl, { headers: { accept: 'application/json', 'a2a-version': '1.0', ...headers }, signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    throw new SynapseError('agent_unreachable', `cannot reach ${cardUrl}: ${(err as Error).message}`);
  }
  if (!res.ok)
    throw new SynapseError(res.status === 404 ? 'not_found' : 'agent_unreachable', `${cardUrl} answered HTTP ${res.status}; is ${url} an A2A agent?`);
  let raw: unknown;
  try {
    raw = await res.json();
  } catch {
    throw new SynapseError('invalid_input', `${cardUrl} did not return JSON`);
  }
  return parseCard(raw, cardUrl);
}

/** `external add`: reads the card, checks it, stores it under `alias` (default: from its name). */
export async function addExternal(
  store: ExternalStore,
  input: { url: string; alias?: string; headers?: Record<string, string> },
  now = new Date(),
): Promise<ExternalAgent> {
  const headers = input.headers ?? {};
  const read = await fetchCard(input.url, headers);
  const alias = validateAlias(input.alias ?? aliasFromName(read.card.name));
  const previous = store.find(alias);
  return store.save({
    alias,
    url: input.url,
    card_url: read.cardUrl,
    protocol_version: read.version,
    name: read.card.name,
    description: read.card.description,
    headers,
    card: read.raw,
    added_at: previous?.added_at ?? now.toISOString(),
    updated_at: now.toISOString(),
  });
}

/** The stored card as a 1.0 card. */
export function storedCard(agent: ExternalAgent): AgentCard {
  return parseCard(agent.card, agent.card_url).card;
}

/** A client on the first binding of the card the SDK speaks; gRPC support loads only when the card offers it. */
export async function clientFor(agent: ExternalAgent): Promise<Client> {
  const card = storedCard(agent);
  // Its bindings may name other hosts and schemes than the card's URL (a gRPC one has none).
  trustExtraCaCerts();
  const legacyCompat = { enabled: true };
  const transports: TransportFactory[] = [new JsonRpcTransportFactory({ legacyCompat }), new RestTransportFactory({ legacyCompat })];
  if (card.supportedInterfaces.some((i) => i.protocolBinding === 'GRPC')) {
    const { GrpcTransportFactory } = await import('@a2a-js/sdk/client/grpc');
    transports.push(new GrpcTransportFactory({ legacyCompat }));
  }
  const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports }));
  try {
    return await factory.createFromAgentCard(card);
  } catch (err) {
    throw new SynapseError('agent_unreachable', `no usable binding for ${agent.alias}: ${(err as Error).message}`);
  }
}

export type SendMode = 'return' | 'wait' | 'stream';

export interface SendOutcome {
  /** Binding and protocol version the client chose, e.g. "JSONRPC 1.0". */
  via: string;
  task_id: string | null;
  context_id: string | null;
  state: string | null;
  /** The answer: artifact text of a task, or the text of a message reply. */
  text: string;
}

export interface StreamNote {
  kind: 'task' | 'status' | 'artifact' | 'message';
  state?: string;
  text?: string;
}

function stateName(s: TaskState | undefined): string | null {
  return s === undefined ? null : (fromSdkState(s) ?? TaskState[s]?.replace(/^TASK_STATE_/, '').toLowerCase() ?? null);
}

function taskText(task: Task): string {
  return task.artifacts
    .map((a) => sdkMessageText({ parts: a.parts } as Message))
    .filter(Boolean)
    .join('\n');
}

function outcome(via: string, result: Task | Message): SendOutcome {
  if ('messageId' in result) return { via, task_id: result.taskId || null, context_id: result.contextId || null, state: null, text: sdkMessageText(result) };
  return { via, task_id: result.id, context_id: result.contextId, state: stateName(result.status?.state), text: taskText(result) };
}

function userMessage(text: string): Message {
  return {
    messageId: randomUUID(),
    role: Role.ROLE_USER,
    parts: [{ content: { $case: 'text', value: text }, mediaType: 'text/plain', filename: '', metadata: undefined }],
    contextId: '',
    taskId: '',
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/**
 * Sends `text`. `return`: as soon as the agent has the task; `wait`: until it is done (or needs
 * input); `stream`: like wait, reporting every event to `onEvent` on the way.
 */
export async function sendExternal(
  agent: ExternalAgent,
  text: string,
  opts: { mode: SendMode; timeoutMs?: number; onEvent?: (n: StreamNote) => void },
): Promise<SendOutcome> {
  const client = await clientFor(agent);
  const via = `${client.transport.protocolName} ${client.protocolVersion}`;
  const options = { serviceParameters: { ...agent.headers }, ...(opts.timeoutMs ? { signal: AbortSignal.timeout(opts.timeoutMs) } : {}) };
  const request = {
    tenant: '',
    message: userMessage(text),
    configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately: opts.mode === 'return' },
    metadata: undefined,
  };
  try {
    if (opts.mode !== 'stream') return outcome(via, await client.sendMessage(request, options));
    let last: SendOutcome = { via, task_id: null, context_id: null, state: null, text: '' };
    const artifacts = new Map<string, string>();
    for await (const ev of client.sendMessageStream(request, options) as AsyncGenerator<StreamResponse>) {
      const p = ev.payload;
      if (!p) continue;
      if (p.$case === 'task') {
        last = outcome(via, p.value);
        opts.onEvent?.({ kind: 'task', ...(last.state ? { state: last.state } : {}) });
      } else if (p.$case === 'statusUpdate') {
        last = { ...last, task_id: p.value.taskId, context_id: p.value.contextId, state: stateName(p.value.status?.state) };
        opts.onEvent?.({
          kind: 'status',
          ...(last.state ? { state: last.state } : {}),
          ...(p.value.status?.message ? { text: sdkMessageText(p.value.status.message) } : {}),
        });
      } else if (p.$case === 'artifactUpdate' && p.value.artifact) {
        const a = p.value.artifact;
        const piece = sdkMessageText({ parts: a.parts } as Message);
        artifacts.set(a.artifactId, p.value.append ? `${artifacts.get(a.artifactId) ?? ''}${piece}` : piece);
        opts.onEvent?.({ kind: 'artifact', text: piece });
      } else if (p.$case === 'message') {
        last = outcome(via, p.value);
        opts.onEvent?.({ kind: 'message', text: last.text });
      }
    }
    return artifacts.size > 0 ? { ...last, text: [...artifacts.values()].join('\n') } : last;
  } catch (err) {
    if (err instanceof SynapseError) throw err;
    const name = (err as Error).name;
    if (name === 'TimeoutError' || name === 'AbortError')
      throw new SynapseError('answer_timeout', `${agent.alias} did not answer within ${Math.round((opts.timeoutMs ?? 0) / 1000)} s`);
    throw new SynapseError('delivery_failed', `sending to ${agent.alias} (${via}) failed: ${(err as Error).message}`);
  }
}
