import { Type, type Static } from 'typebox';
import { WEBHOOK_EVENTS } from '../store/webhooks.js';

/** JSON Schemas of the webhook routes (emitted as JSON at build time). */
const Event = Type.Enum([...WEBHOOK_EVENTS]);
const Id = Type.String({ minLength: 1, maxLength: 64 });

export const WebhookBodySchema = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: 2048 }),
    events: Type.Optional(Type.Array(Event, { minItems: 1, maxItems: WEBHOOK_EVENTS.length, uniqueItems: true })),
    secret: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
  },
  { additionalProperties: false },
);

export const WebhookIdParamsSchema = Type.Object({ id: Id });

export const WebhookDeleteQuerySchema = Type.Object({ url: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })) });

export const DeliveryQuerySchema = Type.Object({
  webhook_id: Type.Optional(Id),
  delivery_id: Type.Optional(Id),
  task_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
});

export type WebhookBody = Static<typeof WebhookBodySchema>;
