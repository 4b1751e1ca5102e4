import { Type, type Static } from 'typebox';

/** JSON Schemas for the Synapse routes; Fastify compiles each once at start-up. */
export const PartSchema = Type.Union([
  Type.Object({ type: Type.Literal('text'), text: Type.String() }),
  Type.Object({
    type: Type.Literal('file'),
    file: Type.Object({
      name: Type.Optional(Type.String({ maxLength: 1024 })),
      mimeType: Type.Optional(Type.String({ maxLength: 255 })),
      bytes: Type.Optional(Type.String()),
      uri: Type.Optional(Type.String({ maxLength: 4096 })),
    }),
  }),
  Type.Object({ type: Type.Literal('data'), data: Type.Record(Type.String(), Type.Unknown()) }),
]);

export const MessageSchema = Type.Object({
  role: Type.Union([Type.Literal('user'), Type.Literal('agent')]),
  parts: Type.Array(PartSchema, { minItems: 1, maxItems: 64 }),
});

export const SenderSchema = Type.Object({
  sender_id: Type.Optional(Type.String({ maxLength: 256 })),
  sender_name: Type.Optional(Type.String({ maxLength: 256 })),
  sender_type: Type.Optional(Type.String({ maxLength: 64 })),
  sender_endpoint: Type.Optional(Type.String({ maxLength: 2048 })),
});

export const SendBodySchema = Type.Object({
  message: MessageSchema,
  /** A client-chosen task id (a UUID), so a caller can link the task before it exists. */
  task_id: Type.Optional(Type.String({ pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$' })),
  context_id: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
  metadata: Type.Optional(
    Type.Object(
      {
        sender: Type.Optional(SenderSchema),
        response_mode: Type.Optional(Type.Union([Type.Literal('wait'), Type.Literal('notify'), Type.Literal('silent')])),
        in_reply_to: Type.Optional(Type.String({ maxLength: 256 })),
      },
      { additionalProperties: true },
    ),
  ),
});

/**
 * The headers a send reads (issue 21 §3): `Idempotency-Key`, 1-255 printable ASCII characters. A
 * retry with the key of a send from the last 24 h gets that send's task back (200), never a second one.
 */
export const SendHeadersSchema = Type.Object({
  'idempotency-key': Type.Optional(Type.String({ minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' })),
});

export const PriorityQuerySchema = Type.Object({
  priority: Type.Optional(Type.Integer({ minimum: 1, maximum: 5 })),
});

export const TaskIdParamsSchema = Type.Object({ id: Type.String({ minLength: 1, maxLength: 128 }) });

/** The original's state names; `input-required` (this implementation's older spelling) is still taken. */
const STATE_NAMES = ['submitted', 'working', 'input_required', 'input-required', 'completed', 'failed', 'canceled'] as const;

export const TaskListQuerySchema = Type.Object({
  state: Type.Optional(Type.Union(STATE_NAMES.map((s) => Type.Literal(s)))),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  context_id: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
});

export type SendBody = Static<typeof SendBodySchema>;

/** A task's error as the original has it. */
export const TaskErrorSchema = Type.Object({
  code: Type.String({ minLength: 1, maxLength: 100 }),
  message: Type.String({ maxLength: 100_000 }),
  data: Type.Optional(Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()])),
});

const ReplyStatus = Type.Union([Type.Literal('completed'), Type.Literal('failed')]);

export const ReplyBodySchema = Type.Object({
  text: Type.String({ minLength: 1, maxLength: 1_000_000 }),
  task_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  sender_id: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
  /** `failed`: the text is the reason (`synapse reply --fail`); the error defaults to REPLY_FAILED. */
  status: Type.Optional(ReplyStatus),
  error: Type.Optional(TaskErrorSchema),
});

/** `POST /tasks/{id}/reply`, the original's ExplicitReplyRequest. */
export const TaskReplyBodySchema = Type.Object({
  message: Type.String({ minLength: 1, maxLength: 1_000_000 }),
  status: Type.Optional(ReplyStatus),
  error: Type.Optional(Type.Union([TaskErrorSchema, Type.Null()])),
});

/** `POST /tasks/create`, the original's CreateTaskRequest (plus `context_id`). */
export const CreateTaskBodySchema = Type.Object({
  message: MessageSchema,
  metadata: Type.Optional(Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()])),
  context_id: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
});

/** `POST /history/update`, the original's HistoryUpdateRequest. */
export const HistoryUpdateBodySchema = Type.Object({
  task_id: Type.String({ minLength: 1, maxLength: 128 }),
  status: Type.Union([Type.Literal('completed'), Type.Literal('failed'), Type.Literal('canceled')]),
  output_summary: Type.Optional(Type.Union([Type.String({ maxLength: 1_000_000 }), Type.Null()])),
});

export const ReplySelectQuerySchema = Type.Object({
  sender_id: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
  task_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
});

export const StreamQuerySchema = Type.Object({
  last_event_id: Type.Optional(Type.Integer({ minimum: 0 })),
});

export const RespondBodySchema = Type.Object({
  /** A choice key ("1", "3") or approve / deny / yes / no. */
  choice: Type.String({ minLength: 1, maxLength: 200 }),
});

/** `POST /tasks/{id}/reject`: why, delivered to the agent as its next message (optional). */
export const PlanRejectBodySchema = Type.Object({
  reason: Type.Optional(Type.String({ minLength: 1, maxLength: 100_000 })),
});
