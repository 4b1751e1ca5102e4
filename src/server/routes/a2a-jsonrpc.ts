import type { FastifyReply, FastifyRequest } from 'fastify';
import { A2A_ERROR_CODE, VersionNotSupportedError } from '@a2a-js/sdk/errors';
import { defaultServerCallContextBuilder, JsonRpcTransportHandler, type ServerCallContext } from '@a2a-js/sdk/server';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import { isV1JsonRpcMethod } from '@a2a-js/sdk/compat/v0_3';
import { Extensions } from '@a2a-js/sdk';
import { A2A_PATHS } from '../../a2a/paths.js';
import type { A2aService } from '../../a2a/sdk/service.js';
import { streamSse } from './a2a-sse.js';
import { sendRpcLimit } from './a2a-limits.js';
import { limitRefusal } from '../../a2a/sdk/request-handler.js';
import type { StreamSlots } from '../stream-slots.js';
import { header, requestedVersion } from './a2a-version.js';

type RpcId = string | number | null;
type Envelope = { jsonrpc: '2.0'; id: RpcId; result?: unknown; error?: unknown };

function rpcError(id: RpcId, code: number, message: string, data?: unknown): Envelope {
  return { jsonrpc: '2.0', id, error: { code, message, ...(data !== undefined ? { data } : {}) } };
}

function validId(id: unknown): id is RpcId {
  return id === null || typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id));
}

/**
 * JSON-RPC 2.0 framing checked here, before the SDK: the SDK reports a parse error and a
 * malformed envelope as invalid params, while JSON-RPC 2.0 §5.1 gives them their own codes
 * (-32700, -32600). What passes is handed to the SDK's transport handler unchanged.
 */
function parseEnvelope(body: unknown): { ok: true; request: Record<string, unknown> } | { ok: false; reply: Envelope } {
  const text = typeof body === 'string' ? body : '';
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    return {
      ok: false,
      reply: rpcError(null, A2A_ERROR_CODE.PARSE_ERROR, `Parse error: ${text.trim() === '' ? 'the request body is empty' : (err as Error).message}`),
    };
  }
  if (Array.isArray(parsed))
    return { ok: false, reply: rpcError(null, A2A_ERROR_CODE.INVALID_REQUEST, 'Invalid Request: batch requests are not supported; send one JSON-RPC object') };
  if (parsed === null || typeof parsed !== 'object')
    return { ok: false, reply: rpcError(null, A2A_ERROR_CODE.INVALID_REQUEST, 'Invalid Request: the body must be a JSON-RPC request object') };
  const req = parsed as Record<string, unknown>;
  const id = 'id' in req && validId(req.id) ? req.id : null;
  if ('id' in req && !validId(req.id))
    return { ok: false, reply: rpcError(null, A2A_ERROR_CODE.INVALID_REQUEST, 'Invalid Request: id must be a string, an integer or null') };
  if (req.jsonrpc !== '2.0') return { ok: false, reply: rpcError(id, A2A_ERROR_CODE.INVALID_REQUEST, 'Invalid Request: jsonrpc must be "2.0"') };
  if (typeof req.method !== 'string' || req.method === '')
    return { ok: false, reply: rpcError(id, A2A_ERROR_CODE.INVALID_REQUEST, 'Invalid Request: method must be a non-empty string') };
  return { ok: true, request: req };
}

// A Map, not an object: a method named `__proto__` or `constructor` must find nothing here.
const V03_REQUIRED_OBJECTS: ReadonlyMap<string, readonly string[]> = new Map([
  ['message/send', ['message']],
  ['message/stream', ['message']],
  ['tasks/pushNotificationConfig/set', ['pushNotificationConfig']],
]);

/**
 * Task and context ids in `params` (and in `params.message`) are strings. The SDK calls string
 * methods on them unchecked, so `{"id": {}}` became an internal error (-32603,
 * "taskId.trim is not a function") instead of invalid params.
 */
function paramsProblem(method: string, params: unknown): string | null {
  if (params === undefined) return null;
  if (params === null || typeof params !== 'object' || Array.isArray(params)) return 'params must be an object';
  const p = params as Record<string, unknown>;
  // The 0.3 dialect's converters read these without looking (`pushNotificationConfig.id` of undefined).
  for (const key of V03_REQUIRED_OBJECTS.get(method) ?? []) {
    const v = p[key];
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return `params.${key} must be an object`;
  }
  const message = p.message;
  const ids: Array<[string, unknown]> = [
    ['params.id', p.id],
    ['params.taskId', p.taskId],
    ...(message !== null && typeof message === 'object' && !Array.isArray(message)
      ? [
          ['params.message.taskId', (message as Record<string, unknown>).taskId] as [string, unknown],
          ['params.message.contextId', (message as Record<string, unknown>).contextId] as [string, unknown],
        ]
      : []),
  ];
  const bad = ids.find(([, v]) => v !== undefined && v !== null && typeof v !== 'string');
  return bad ? `${bad[0]} must be a string` : null;
}

type Dialect = 'v1' | 'v03';

/**
 * Which dialect serves the request. The main endpoint follows the SDK's convention (the
 * `A2A-Version` header picks; no header means 0.3), the v0.3 endpoint speaks only 0.3.
 * A v1.0 method name without the header is answered with the fix rather than "method not found".
 */
function pickDialect(path: 'main' | 'v03', version: string | null, method: string): Dialect | Error {
  if (path === 'v03') {
    if (version === null || version === '0.3') return 'v03';
    return new VersionNotSupportedError(
      `${A2A_PATHS.jsonrpcV03} speaks A2A 0.3 only (got A2A-Version ${version}); use ${A2A_PATHS.jsonrpc} with A2A-Version: 1.0`,
    );
  }
  if (version === '1.0') return 'v1';
  if (version === '0.3') return 'v03';
  if (version === null) {
    return isV1JsonRpcMethod(method)
      ? new VersionNotSupportedError(`${method} is an A2A 1.0 method: send the header A2A-Version: 1.0 (without it the request is read as A2A 0.3)`)
      : 'v03';
  }
  return new VersionNotSupportedError(`A2A-Version ${version} is not supported; supported versions: 1.0, 0.3`);
}

function context(req: FastifyRequest, dialect: Dialect): ServerCallContext {
  // v0.3 spelled the extensions header with an X- prefix; accept both there.
  const ext = dialect === 'v03' ? (header(req, 'x-a2a-extensions') ?? header(req, 'a2a-extensions')) : header(req, 'a2a-extensions');
  return defaultServerCallContextBuilder({
    extensions: Extensions.parseServiceParameter(ext),
    user: undefined,
    headers: req.headers,
    requestedVersion: dialect === 'v1' ? '1.0' : '0.3',
  });
}

/** One JSON-RPC 2.0 request on the main endpoint (A2A 1.0, or 0.3 by header) or the 0.3 one. */
export async function handleJsonRpc(
  service: A2aService,
  streams: StreamSlots,
  path: 'main' | 'v03',
  req: FastifyRequest,
  reply: FastifyReply,
): Promise<unknown> {
  const envelope = parseEnvelope(req.body);
  if (!envelope.ok) return reply.status(200).send(envelope.reply);
  const rpc = envelope.request;
  const id = (rpc.id ?? null) as RpcId;
  const dialect = pickDialect(path, requestedVersion(req), rpc.method as string);
  if (dialect instanceof Error) return reply.status(200).send({ jsonrpc: '2.0', id, error: JsonRpcTransportHandler.mapToJSONRPCError(dialect) });
  const mapError = (err: unknown) =>
    dialect === 'v03' ? LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError(err) : JsonRpcTransportHandler.mapToJSONRPCError(err);
  const badParams = paramsProblem(rpc.method as string, rpc.params);
  if (badParams) return reply.status(200).send(rpcError(id, A2A_ERROR_CODE.INVALID_PARAMS, `Invalid params: ${badParams}`));
  const ctx = context(req, dialect);
  const out = await (dialect === 'v1' ? service.jsonrpc : service.legacyJsonrpc).handle(rpc, ctx);
  const extHeader = dialect === 'v03' ? 'x-a2a-extensions' : 'a2a-extensions';
  const activated = ctx.activatedExtensions?.length ? { [extHeader]: ctx.activatedExtensions.join(',') } : {};
  if (Symbol.asyncIterator in (out as object)) {
    const events = out as AsyncGenerator<unknown, void, undefined>;
    return streamSse(
      reply,
      streams,
      events,
      (e) => e,
      (err) =>
        sendRpcLimit(reply, id, err) ??
        reply
          .status(200)
          .headers(activated)
          .send({ jsonrpc: '2.0', id, error: mapError(err) }),
      (err) => ({ jsonrpc: '2.0', id, error: mapError(err) }),
      activated,
    );
  }
  // A limit (message size, the sender's queue) the SDK answered as an internal error: 413 / 429 with its own code.
  const limit = limitRefusal(ctx);
  if (limit) return sendRpcLimit(reply, id, limit);
  return reply.status(200).headers(activated).send(out);
}
