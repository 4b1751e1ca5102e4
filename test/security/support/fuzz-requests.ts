import { DEAD_URL, type FuzzRequest, type Gen } from './fuzz-gen.js';

/**
 * The agent's routes with a valid body for each, as seeds for the schema-guided requests.
 * `POST /shutdown` is left out (it ends the agent on purpose). Sends ask for no reply and never
 * block on the task (`returnImmediately`), so the run measures the edge, not the queue.
 */
interface RouteSeed {
  method: string;
  path: (g: Gen) => string;
  body?: (g: Gen) => unknown;
  /** Put back what must hold after mutation so the request cannot block on the task queue. */
  fix?: (body: any) => void;
}

/** Percent-encoded, lone surrogates as U+FFFD (encodeURIComponent throws on them). */
const enc = (s: string) => encodeURIComponent(s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd'));
const text = (g: Gen) => (g.chance(0.5) ? 'fuzz hello' : g.string());
const synapseMessage = (g: Gen) => ({
  message: { role: 'user', parts: [{ type: 'text', text: text(g) }] },
  metadata: { response_mode: 'silent', sender: { sender_id: 'synapse-fuzz-1', sender_name: 'fuzz', sender_endpoint: DEAD_URL } },
});
const a2aMessage = (g: Gen) => ({
  messageId: `m-${g.int(1e9)}`,
  role: 'ROLE_USER',
  parts: [{ text: text(g) }],
  metadata: { synapse: { responseMode: 'silent' } },
});
const v03Message = (g: Gen) => ({ kind: 'message', messageId: `m-${g.int(1e9)}`, role: 'user', parts: [{ kind: 'text', text: text(g) }] });
const nonBlocking = (body: any) => {
  if (body && typeof body === 'object' && body.params && typeof body.params === 'object') {
    body.params.configuration = {
      ...(typeof body.params.configuration === 'object' ? body.params.configuration : {}),
      returnImmediately: true,
      blocking: false,
    };
  }
};
const restNonBlocking = (body: any) => {
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    body.configuration = { ...(typeof body.configuration === 'object' ? body.configuration : {}), returnImmediately: true };
  }
};
const RPC_METHODS = [
  'SendMessage',
  'SendStreamingMessage',
  'GetTask',
  'ListTasks',
  'CancelTask',
  'SubscribeToTask',
  'GetExtendedAgentCard',
  'CreateTaskPushNotificationConfig',
  'nope',
];
const V03_METHODS = ['message/send', 'message/stream', 'tasks/get', 'tasks/cancel', 'tasks/resubscribe', 'tasks/pushNotificationConfig/set', 'nope'];
const rpc = (g: Gen, methods: string[], message: unknown) => ({
  jsonrpc: '2.0',
  id: g.pick([1, 'x', null, 2 ** 53, {}]),
  method: g.pick(methods),
  params: { message, id: g.id(), taskId: g.id(), pushNotificationConfig: { url: DEAD_URL }, configuration: { returnImmediately: true, blocking: false } },
});

const ROUTES: RouteSeed[] = [
  { method: 'POST', path: () => '/tasks/send', body: synapseMessage },
  { method: 'POST', path: (g) => `/tasks/send-priority?priority=${g.pick(['1', '3', '4', '5', '0', '6', 'x', '', '1e3'])}`, body: synapseMessage },
  { method: 'POST', path: () => '/tasks/create', body: (g) => ({ message: { role: 'user', parts: [{ type: 'text', text: text(g) }] }, metadata: {} }) },
  { method: 'GET', path: (g) => `/tasks?state=${g.pick(['submitted', 'completed', 'bogus', ''])}&limit=${g.pick(['1', '1000', '0', '-1', 'x'])}` },
  { method: 'GET', path: (g) => `/tasks/${enc(g.id())}` },
  { method: 'POST', path: (g) => `/tasks/${enc(g.id())}/cancel`, body: () => ({}) },
  { method: 'POST', path: (g) => `/tasks/${enc(g.id())}/respond`, body: (g) => ({ choice: g.pick(['1', 'approve', 'deny', g.string()]) }) },
  { method: 'POST', path: (g) => `/tasks/${enc(g.id())}/permission/${g.pick(['approve', 'deny'])}`, body: () => ({}) },
  { method: 'POST', path: (g) => `/tasks/${enc(g.id())}/approve`, body: () => ({}) },
  { method: 'POST', path: (g) => `/tasks/${enc(g.id())}/reject`, body: (g) => g.pick([{}, { reason: text(g) }, { reason: '' }, { reason: 42 }]) },
  { method: 'POST', path: (g) => `/tasks/${enc(g.id())}/reply`, body: (g) => ({ message: text(g), status: 'completed' }) },
  { method: 'GET', path: (g) => `/tasks/${enc(g.id())}/subscribe?last_event_id=${g.pick(['0', '-1', 'x', '99999'])}` },
  { method: 'POST', path: () => '/history/update', body: (g) => ({ task_id: g.id(), status: 'completed', output_summary: text(g) }) },
  { method: 'GET', path: () => '/events' },
  { method: 'GET', path: () => '/status' },
  { method: 'GET', path: () => '/screen' },
  { method: 'GET', path: () => '/.well-known/agent.json' },
  { method: 'GET', path: () => '/.well-known/agent-card.json' },
  { method: 'GET', path: (g) => `/reply-stack/${g.pick(['list', 'get', 'pop'])}?sender_id=${enc(g.id())}` },
  { method: 'POST', path: () => '/reply-stack/pop', body: () => ({}) },
  { method: 'POST', path: () => '/reply', body: (g) => ({ text: text(g), task_id: g.id(), sender_id: 'synapse-fuzz-1', status: 'completed' }) },
  { method: 'POST', path: () => '/webhooks', body: (g) => ({ url: DEAD_URL, events: ['task.completed'], secret: g.string() }) },
  { method: 'GET', path: () => '/webhooks' },
  { method: 'GET', path: () => '/webhooks/deliveries?limit=5' },
  { method: 'DELETE', path: (g) => `/webhooks/${enc(g.id())}` },
  { method: 'GET', path: (g) => `/tasks/board?status=${enc(g.string())}&group_by=${g.pick(['status', 'x'])}` },
  { method: 'POST', path: () => '/tasks/board', body: (g) => ({ subject: text(g), priority: 3, blocked_by: [g.id()] }) },
  { method: 'POST', path: (g) => `/tasks/board/${enc(g.id())}/${g.pick(['claim', 'complete', 'reopen'])}`, body: () => ({ agent_id: 'fuzz' }) },
  { method: 'POST', path: (g) => `/tasks/board/${enc(g.id())}/fail`, body: (g) => ({ reason: text(g) }) },
  { method: 'POST', path: () => '/tasks/board/purge', body: () => ({ status: 'completed', dry_run: true }) },
  { method: 'POST', path: () => '/memory/save', body: (g) => ({ key: g.string() || 'k', content: text(g), tags: ['a'], notify: false }) },
  { method: 'GET', path: (g) => `/memory/search?q=${enc(g.string())}` },
  { method: 'GET', path: (g) => `/memory/${enc(g.id())}` },
  { method: 'DELETE', path: (g) => `/memory/${enc(g.id())}` },
  { method: 'GET', path: () => '/external/agents' },
  { method: 'POST', path: () => '/external/discover', body: () => ({ url: DEAD_URL, save: false }) },
  { method: 'POST', path: (g) => `/external/agents/${enc(g.id())}/send`, body: (g) => ({ message: text(g) }) },
  { method: 'POST', path: () => '/a2a/jsonrpc', body: (g) => rpc(g, RPC_METHODS, a2aMessage(g)), fix: nonBlocking },
  { method: 'POST', path: () => '/a2a/v0.3/jsonrpc', body: (g) => rpc(g, V03_METHODS, v03Message(g)), fix: nonBlocking },
  {
    method: 'POST',
    path: (g) => `/a2a/rest/v1/${g.pick(['message:send', 'message:stream', 'message:nope'])}`,
    body: (g) => ({ message: a2aMessage(g) }),
    fix: restNonBlocking,
  },
  { method: 'GET', path: (g) => `/a2a/rest/v1/tasks/${enc(g.id())}${g.pick(['', ':subscribe', '?historyLength=-1'])}` },
  { method: 'POST', path: (g) => `/a2a/rest/v1/tasks/${enc(g.id())}:cancel`, body: () => ({}) },
  {
    method: 'GET',
    path: (g) => `/a2a/rest/v1/tasks?pageSize=${g.pick(['1', '0', '-5', 'x', '1000000'])}&status=${g.pick(['TASK_STATE_COMPLETED', '7', 'x'])}`,
  },
  { method: 'POST', path: (g) => `/a2a/rest/v1/tasks/${enc(g.id())}/pushNotificationConfigs`, body: () => ({ url: DEAD_URL }) },
  { method: 'GET', path: () => '/a2a/rest/v1/extendedAgentCard' },
];

/** Methods Node's HTTP parser knows (it refuses others before the app: see the raw-bytes requests). */
const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS', 'PROPFIND', 'TRACE'];
const RANDOM_PATHS = [
  '/',
  '/tasks/',
  '/a2a/',
  '/a2a/rest/v1/',
  '/%2e%2e/%2e%2e/etc/passwd',
  '/../../etc/passwd',
  '/tasks/..%2f..%2fshutdown',
  '//status',
  '/status?',
  '/a2a/rest/v1/%00',
];
const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/a2a+json',
  'text/plain',
  'application/x-www-form-urlencoded',
  'application/json; charset=utf-16',
  'APPLICATION/JSON',
  ';;',
  'multipart/form-data; boundary=x',
];

function headers(g: Gen, port: number, hasBody: boolean): Record<string, string> {
  const h: Record<string, string> = {};
  if (hasBody ? g.chance(0.85) : g.chance(0.1)) h['content-type'] = g.chance(0.7) ? 'application/json' : g.pick(CONTENT_TYPES);
  if (g.chance(0.3)) h['a2a-version'] = g.pick(['1.0', '0.3', '2', '', 'x'.repeat(100)]);
  if (g.chance(0.1)) h.origin = g.pick([`http://127.0.0.1:${port}`, 'http://evil.example', 'null', '']);
  if (g.chance(0.1)) h.accept = g.pick(['text/event-stream', 'application/json', '*/*', 'x']);
  if (g.chance(0.05)) h['last-event-id'] = g.pick(['1', '-1', 'x', '9'.repeat(40)]);
  if (g.chance(0.05)) h['a2a-extensions'] = g.string().replace(/[^\x20-\x7e]/g, '');
  if (g.chance(0.05)) h['x-fuzz'] = 'y'.repeat(g.pick([10, 4000]));
  return h;
}

function encodeBody(g: Gen, value: unknown): Buffer {
  const json = JSON.stringify(value) ?? 'null';
  const k = g.int(20);
  if (k === 0) return Buffer.from(json.slice(0, g.int(json.length + 1))); // truncated
  if (k === 1) return Buffer.from([0xff, 0xfe, 0x00, 0x9b, 0x7b]); // not UTF-8, not JSON
  if (k === 2) return Buffer.from(`${json}${json}`); // two documents
  if (k === 3) return Buffer.from('{"a":'.repeat(2000)); // deep nesting, unterminated
  if (k === 4) return Buffer.from(`[${'['.repeat(5000)}${']'.repeat(5000)}]`); // deep nesting, valid
  return Buffer.from(json);
}

/** One generated request: 80 % schema-guided on a known route, the rest anything at all. */
export function generateRequest(g: Gen, port: number): FuzzRequest {
  if (g.chance(0.8)) {
    const route = g.pick(ROUTES);
    const method = g.chance(0.92) ? route.method : g.pick(METHODS);
    let body: Buffer | undefined;
    if (route.body && method !== 'GET' && method !== 'HEAD') {
      const value = g.chance(0.3) ? route.body(g) : g.mutate(route.body(g));
      route.fix?.(value);
      body = encodeBody(g, value);
    } else if (method !== 'GET' && method !== 'HEAD' && g.chance(0.3)) {
      body = encodeBody(g, g.value());
    }
    return { method, path: route.path(g), headers: headers(g, port, body !== undefined), ...(body ? { body } : {}) };
  }
  const method = g.pick(METHODS);
  const path = g.chance(0.5) ? g.pick(RANDOM_PATHS) : `/${enc(g.string())}/${enc(g.string())}`;
  const body = method !== 'GET' && method !== 'HEAD' && g.chance(0.6) ? encodeBody(g, g.value()) : undefined;
  return { method, path, headers: headers(g, port, body !== undefined), ...(body ? { body } : {}) };
}

/** One body over the 1 MiB limit, for the few requests that check it. */
export function oversized(): FuzzRequest {
  return {
    method: 'POST',
    path: '/tasks/send',
    headers: { 'content-type': 'application/json' },
    body: Buffer.from(JSON.stringify({ message: { role: 'user', parts: [{ type: 'text', text: 'x'.repeat(1_100_000) }] } })),
  };
}
