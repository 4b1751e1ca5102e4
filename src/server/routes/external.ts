import type { FastifyPluginAsync } from 'fastify';
import { SynapseError } from '../../errors.js';
import { ADMIN_ROUTE } from '../auth.js';
import { ExternalStore, externalDir, type ExternalAgent } from '../../a2a/external-store.js';

type Env = Record<string, string | undefined>;

// Plain JSON Schema (Fastify compiles it once); TypeBox is not loaded in agents at run time.
const headersSchema = { type: 'object', additionalProperties: { type: 'string', maxLength: 4096 }, maxProperties: 32 } as const;
const DiscoverBody = {
  type: 'object',
  required: ['url'],
  additionalProperties: false,
  properties: {
    url: { type: 'string', minLength: 1, maxLength: 2048 },
    alias: { type: 'string', minLength: 1, maxLength: 63 },
    headers: headersSchema,
    save: { type: 'boolean' },
  },
} as const;
const AliasParams = { type: 'object', required: ['alias'], properties: { alias: { type: 'string', minLength: 1, maxLength: 63 } } } as const;
const SendBody = {
  type: 'object',
  required: ['message'],
  additionalProperties: false,
  properties: {
    message: { type: 'string', minLength: 1, maxLength: 1_000_000 },
    wait: { type: 'boolean' },
    timeout: { type: 'number', exclusiveMinimum: 0, maximum: 3600 },
  },
} as const;

interface DiscoverInput {
  url: string;
  alias?: string;
  headers?: Record<string, string>;
  save?: boolean;
}

/** The stored record without header values (they may be credentials). */
function publicView(a: ExternalAgent, withCard: boolean) {
  const { headers, card, ...rest } = a;
  return { ...rest, header_names: Object.keys(headers), ...(withCard ? { card } : {}) };
}

/**
 * External A2A agents over HTTP, the same store as `synapse external`: discover (read, check and
 * by default keep a card), list, show, forget, send. The SDK client loads on first use.
 */
export const externalRoutes: FastifyPluginAsync<{ env: Env }> = async (app, { env }) => {
  const store = new ExternalStore(externalDir(env));
  const client = () => import('../../a2a/external-client.js');

  app.post('/external/discover', { ...ADMIN_ROUTE, schema: { body: DiscoverBody } }, async (req, reply) => {
    const body = req.body as DiscoverInput;
    const { addExternal, fetchCard } = await client();
    if (body.save === false) {
      const read = await fetchCard(body.url, body.headers ?? {});
      return { agent: null, card_url: read.cardUrl, protocol_version: read.version, card: read.raw };
    }
    const agent = await addExternal(store, { url: body.url, ...(body.alias ? { alias: body.alias } : {}), ...(body.headers ? { headers: body.headers } : {}) });
    return reply.status(201).send({ agent: publicView(agent, true) });
  });

  app.get('/external/agents', async () => ({ agents: store.list().map((a) => publicView(a, false)) }));

  app.get('/external/agents/:alias', { schema: { params: AliasParams } }, async (req) => ({
    agent: publicView(store.get((req.params as { alias: string }).alias), true),
  }));

  app.delete('/external/agents/:alias', { ...ADMIN_ROUTE, schema: { params: AliasParams } }, async (req) => ({
    agent: publicView(store.remove((req.params as { alias: string }).alias), false),
  }));

  app.post('/external/agents/:alias/send', { schema: { params: AliasParams, body: SendBody } }, async (req) => {
    const body = req.body as { message: string; wait?: boolean; timeout?: number };
    const agent = store.get((req.params as { alias: string }).alias);
    const { sendExternal } = await client();
    if (body.timeout !== undefined && !body.wait) throw new SynapseError('invalid_input', 'timeout only applies with wait: true');
    const result = await sendExternal(agent, body.message, {
      mode: body.wait ? 'wait' : 'return',
      ...(body.wait ? { timeoutMs: (body.timeout ?? 300) * 1000 } : {}),
    });
    return { result };
  });
};
