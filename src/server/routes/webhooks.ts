import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { SynapseError } from '../../errors.js';
import type { WebhookStore } from '../../store/webhooks.js';
import { loadSchemas } from '../schema-registry.js';

const BODY_FIELDS = new Set(['url', 'events', 'secret']);

/**
 * Webhook registration and the delivery log. Thin: the schema validates, the store decides
 * (URL scheme, upsert by URL), and SynapseErrors become statuses in the app's error handler.
 * Secrets go in and never come back out: responses carry `has_secret` only.
 */
export const webhookRoutes: FastifyPluginAsyncTypebox<{ store: WebhookStore }> = async (app, { store }) => {
  const { WebhookBodySchema, WebhookIdParamsSchema, WebhookDeleteQuerySchema, DeliveryQuerySchema } = await loadSchemas('webhook-schemas');

  // Fastify's validator silently drops unknown fields; a typo like `event` must not quietly
  // subscribe the URL to everything, so unknown fields are refused with their name.
  const refuseUnknownFields = async (req: { body: unknown }) => {
    if (typeof req.body !== 'object' || req.body === null || Array.isArray(req.body)) return;
    const unknown = Object.keys(req.body).filter((k) => !BODY_FIELDS.has(k));
    if (unknown.length > 0)
      throw new SynapseError('invalid_input', `unknown field(s) ${unknown.map((k) => `"${k}"`).join(', ')}; a webhook takes url, events and secret`);
  };

  app.post('/webhooks', { schema: { body: WebhookBodySchema }, preValidation: refuseUnknownFields }, async (req, reply) => {
    const { webhook, created } = store.add(req.body);
    return reply.status(created ? 201 : 200).send({ webhook, created });
  });

  app.get('/webhooks', async () => ({ webhooks: store.list() }));

  app.get('/webhooks/deliveries', { schema: { querystring: DeliveryQuerySchema } }, async (req) => ({ deliveries: store.deliveries(req.query) }));

  app.delete('/webhooks/:id', { schema: { params: WebhookIdParamsSchema } }, async (req) => ({ webhook: store.remove(req.params.id) }));

  // By URL, for callers that only know what they registered. Without `url` nothing is deleted.
  app.delete('/webhooks', { schema: { querystring: WebhookDeleteQuerySchema } }, async (req) => {
    if (!req.query.url) throw new SynapseError('invalid_input', 'say which webhook to delete: DELETE /webhooks/<id> or DELETE /webhooks?url=<url>');
    return { webhook: store.removeByUrl(req.query.url) };
  });
};
