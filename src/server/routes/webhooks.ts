import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { SynapseError } from '../../errors.js';
import type { DeliveryAttempt, Webhook, WebhookStore } from '../../store/webhooks.js';
import { ADMIN_ROUTE } from '../auth.js';
import { loadSchemas } from '../schema-registry.js';

const BODY_FIELDS = new Set(['url', 'events', 'secret']);

/** A webhook in the original's shape (`{url, events, enabled, created_at}`), plus ours. */
function wireWebhook(w: Webhook) {
  return { url: w.url, events: w.events, enabled: true, created_at: w.created_at, id: w.id, has_secret: w.has_secret, updated_at: w.updated_at };
}

/** One delivery attempt in the original's shape (`{webhook_url, event_type, event_id, …}`), plus ours. */
function wireDelivery(a: DeliveryAttempt) {
  return {
    webhook_url: a.url,
    event_type: a.event,
    event_id: a.delivery_id,
    status_code: a.status_code,
    success: a.ok,
    attempts: a.attempt,
    error: a.error,
    delivered_at: a.ok ? a.attempted_at : null,
    webhook_id: a.webhook_id,
    task_id: a.task_id,
    duration_ms: a.duration_ms,
    will_retry: a.will_retry,
    attempted_at: a.attempted_at,
  };
}

const removed = (w: Webhook) => ({ status: 'removed', url: w.url, id: w.id });

/**
 * Webhook registration and the delivery log, answering in the original Synapse's shapes. Thin:
 * the schema validates, the store decides (URL scheme, upsert by URL), and SynapseErrors become
 * statuses in the app's error handler. Secrets go in and never come back out: responses carry
 * `has_secret` only.
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

  app.post('/webhooks', { ...ADMIN_ROUTE, schema: { body: WebhookBodySchema }, preValidation: refuseUnknownFields }, async (req, reply) => {
    const { webhook, created } = store.add(req.body);
    return reply.status(created ? 201 : 200).send({ ...wireWebhook(webhook), created });
  });

  app.get('/webhooks', ADMIN_ROUTE, async () => store.list().map(wireWebhook));

  app.get('/webhooks/deliveries', { ...ADMIN_ROUTE, schema: { querystring: DeliveryQuerySchema } }, async (req) =>
    store.deliveries(req.query).map(wireDelivery),
  );

  app.delete('/webhooks/:id', { ...ADMIN_ROUTE, schema: { params: WebhookIdParamsSchema } }, async (req) => removed(store.remove(req.params.id)));

  // By URL, for callers that only know what they registered. Without `url` nothing is deleted.
  app.delete('/webhooks', { ...ADMIN_ROUTE, schema: { querystring: WebhookDeleteQuerySchema } }, async (req) => {
    if (!req.query.url) throw new SynapseError('invalid_input', 'say which webhook to delete: DELETE /webhooks/<id> or DELETE /webhooks?url=<url>');
    return removed(store.removeByUrl(req.query.url));
  });
};
