import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  A2A_CONTENT_TYPE,
  AgentCard,
  ListTaskPushNotificationConfigsResponse,
  ListTasksResponse,
  SendMessageRequest,
  SendMessageResponse,
  StreamResponse,
  Task,
  TaskPushNotificationConfig,
  taskStateFromJSON,
} from '@a2a-js/sdk';
import { RequestMalformedError, restStatusFor, toRestErrorBody, UnsupportedOperationError, VersionNotSupportedError } from '@a2a-js/sdk/errors';
import { defaultServerCallContextBuilder, type ServerCallContext } from '@a2a-js/sdk/server';
import { Extensions } from '@a2a-js/sdk';
import { A2A_PATHS } from '../../a2a/paths.js';
import { isAgentNotReady } from '../../a2a/sdk/request-handler.js';
import type { A2aService } from '../../a2a/sdk/service.js';
import { streamSse } from './a2a-sse.js';
import { sendRestLimit } from './a2a-limits.js';
import type { StreamSlots } from '../stream-slots.js';
import { header, requestedVersion } from './a2a-version.js';

const BASE = A2A_PATHS.rest;

/** Sends an error the way the SDK's REST clients read it (`google.rpc.Status` JSON). */
export function sendRestError(reply: FastifyReply, err: unknown, withStatus?: number): FastifyReply {
  if (withStatus !== undefined) return reply.status(withStatus).type(A2A_CONTENT_TYPE).send(toRestErrorBody(err, withStatus));
  const limited = sendRestLimit(reply, err);
  if (limited) return limited;
  if (isAgentNotReady(err)) return reply.status(503).type(A2A_CONTENT_TYPE).send(toRestErrorBody(err, 503));
  const status = restStatusFor(err);
  return reply.status(status).type(A2A_CONTENT_TYPE).send(toRestErrorBody(err, status));
}

/** The REST binding's context: A2A 1.0 only (the v0.3 REST binding is not served). */
function context(req: FastifyRequest): ServerCallContext {
  const version = requestedVersion(req);
  if (version !== '1.0') {
    throw new VersionNotSupportedError(
      version === null
        ? 'send the header A2A-Version: 1.0 (without it the request is read as A2A 0.3, which this binding does not speak)'
        : `A2A-Version ${version} is not supported here; supported: 1.0`,
    );
  }
  return defaultServerCallContextBuilder({
    extensions: Extensions.parseServiceParameter(header(req, 'a2a-extensions')),
    user: undefined,
    headers: req.headers,
    requestedVersion: '1.0',
  });
}

/**
 * The JSON body: empty means `{}`. Its content type (JSON or a2a+json) was checked before it was
 * read, for the whole app, in server/request-guard.ts.
 */
function body(req: FastifyRequest): Record<string, unknown> {
  const text = typeof req.body === 'string' ? req.body : '';
  if (text.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new RequestMalformedError('Invalid JSON payload.');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new RequestMalformedError('the body must be a JSON object');
  return parsed as Record<string, unknown>;
}

function intParam(value: unknown, name: string, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined {
  if (value === undefined || value === '') return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new RequestMalformedError(`${name} must be an integer from ${min}${max < Number.MAX_SAFE_INTEGER ? ` to ${max}` : ''}`);
  return n;
}

function json(reply: FastifyReply, status: number, value: unknown): FastifyReply {
  return reply.status(status).type(A2A_CONTENT_TYPE).send(value);
}

/** `abc:cancel` → ['abc', 'cancel']; a plain id has no action. Ids are uuids, the action is last. */
function splitAction(segment: string): { id: string; action: string | null } {
  const at = segment.lastIndexOf(':');
  if (at <= 0) return { id: segment, action: null };
  return { id: segment.slice(0, at), action: segment.slice(at + 1) };
}

/** The HTTP+JSON operations; the paths they serve are listed in a2a-routes.ts. */
export type RestOp = 'verb' | 'listTasks' | 'task' | 'createPush' | 'listPush' | 'getPush' | 'deletePush' | 'extendedCard' | 'unknown';

type Handler = (req: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

/**
 * A2A 1.0 HTTP+JSON binding at /a2a/rest/v1, over DefaultRequestHandler methods with the SDK's
 * codecs. Colon verbs (`/message:send`, `/tasks/{id}:cancel`) are one path segment to the
 * router, so each resource has one route that splits the verb off itself.
 */
export function restHandlers(service: A2aService, streams: StreamSlots): Record<RestOp, Handler> {
  const h = service.handler;
  const stream = (reply: FastifyReply, events: AsyncGenerator<StreamResponse, void, undefined>) =>
    streamSse(
      reply,
      streams,
      events,
      (e) => StreamResponse.toJSON(e),
      (err) => sendRestError(reply, err),
      (err) => toRestErrorBody(err, restStatusFor(err)),
    );
  const guarded =
    (handler: Handler): Handler =>
    async (req, reply) => {
      try {
        return await handler(req, reply);
      } catch (err) {
        return sendRestError(reply, err);
      }
    };

  const ops: Record<RestOp, Handler> = {
    verb: async (req, reply) => {
      const verb = (req.params as { verb: string }).verb;
      const ctx = context(req);
      if (verb === 'message:send') {
        const result = await h.sendMessage(SendMessageRequest.fromJSON(body(req)), ctx);
        const payload = 'messageId' in result ? ({ $case: 'message', value: result } as const) : ({ $case: 'task', value: result } as const);
        return json(reply, 200, SendMessageResponse.toJSON({ payload }));
      }
      if (verb === 'message:stream') return stream(reply, h.sendMessageStream(SendMessageRequest.fromJSON(body(req)), ctx));
      throw new UnsupportedOperationError(`no A2A operation POST ${BASE}/${verb}; use /message:send or /message:stream`);
    },

    listTasks: async (req, reply) => {
      const ctx = context(req);
      const q = req.query as Record<string, string | undefined>;
      const status = q.status ? taskStateFromJSON(Number.isNaN(Number(q.status)) ? q.status : Number(q.status)) : 0;
      const pageSize = intParam(q.pageSize, 'pageSize', 1, 100);
      const historyLength = intParam(q.historyLength, 'historyLength', 0);
      const result = await h.listTasks(
        {
          tenant: '',
          contextId: q.contextId ?? '',
          status,
          pageToken: q.pageToken ?? '',
          statusTimestampAfter: q.statusTimestampAfter || undefined,
          includeArtifacts: q.includeArtifacts === 'true',
          ...(pageSize !== undefined ? { pageSize } : {}),
          ...(historyLength !== undefined ? { historyLength } : {}),
        },
        ctx,
      );
      return json(reply, 200, ListTasksResponse.toJSON(result));
    },

    task: async (req, reply) => {
      const { id, action } = splitAction((req.params as { task: string }).task);
      const ctx = context(req);
      if (action === 'subscribe') return stream(reply, h.resubscribe({ tenant: '', id }, ctx));
      if (action === 'cancel' && req.method === 'POST') return json(reply, 200, Task.toJSON(await h.cancelTask({ tenant: '', id, metadata: undefined }, ctx)));
      if (action === null && req.method === 'GET') {
        const historyLength = intParam((req.query as Record<string, string | undefined>).historyLength, 'historyLength', 0);
        return json(reply, 200, Task.toJSON(await h.getTask({ tenant: '', id, ...(historyLength !== undefined ? { historyLength } : {}) }, ctx)));
      }
      throw new UnsupportedOperationError(`no A2A operation ${req.method} ${BASE}/tasks/${id}${action ? `:${action}` : ''}`);
    },

    ...pushHandlers(h),

    extendedCard: async (req, reply) => {
      const ctx = context(req);
      return json(reply, 200, AgentCard.toJSON(await h.getAuthenticatedExtendedAgentCard({ tenant: '' }, ctx)));
    },

    // A plain error, so the body says NOT_FOUND (an A2AError of no known kind reads UNKNOWN / INTERNAL_ERROR).
    unknown: async (req, reply) => sendRestError(reply, new Error(`no A2A HTTP+JSON resource ${req.method} ${req.url.split('?')[0]}`), 404),
  };
  return Object.fromEntries(Object.entries(ops).map(([k, fn]) => [k, guarded(fn)])) as Record<RestOp, Handler>;
}

/** The push-notification config resources of a task: create, list, get, delete. */
function pushHandlers(h: A2aService['handler']): Pick<Record<RestOp, Handler>, 'createPush' | 'listPush' | 'getPush' | 'deletePush'> {
  return {
    createPush: async (req, reply) => {
      const ctx = context(req);
      const config = TaskPushNotificationConfig.fromJSON({ ...body(req), taskId: (req.params as { id: string }).id });
      return json(reply, 201, TaskPushNotificationConfig.toJSON(await h.createTaskPushNotificationConfig(config, ctx)));
    },

    listPush: async (req, reply) => {
      const ctx = context(req);
      const result = await h.listTaskPushNotificationConfigs({ tenant: '', taskId: (req.params as { id: string }).id, pageSize: 0, pageToken: '' }, ctx);
      return json(reply, 200, ListTaskPushNotificationConfigsResponse.toJSON(result));
    },

    getPush: async (req, reply) => {
      const ctx = context(req);
      const p = req.params as { id: string; configId: string };
      return json(reply, 200, TaskPushNotificationConfig.toJSON(await h.getTaskPushNotificationConfig({ tenant: '', taskId: p.id, id: p.configId }, ctx)));
    },

    deletePush: async (req, reply) => {
      const ctx = context(req);
      const p = req.params as { id: string; configId: string };
      await h.deleteTaskPushNotificationConfig({ tenant: '', taskId: p.id, id: p.configId }, ctx);
      return reply.status(204).send();
    },
  };
}
