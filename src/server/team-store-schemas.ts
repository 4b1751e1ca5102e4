import { Type, type Static } from 'typebox';
import { TASK_GROUP_FIELDS } from '../store/board.js';

/** JSON Schemas of the task-board and shared-memory routes (emitted as JSON at build time). */
const Name = Type.String({ minLength: 1, maxLength: 200 });
const Label = Type.String({ maxLength: 500 });

export const TaskInputSchema = Type.Object({
  id: Type.Optional(Type.String({ pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$' })),
  subject: Type.String({ minLength: 1, maxLength: 500 }),
  description: Type.Optional(Type.String({ maxLength: 20_000 })),
  priority: Type.Optional(Type.Integer({ minimum: 1, maximum: 5 })),
  created_by: Type.Optional(Name),
  assignee: Type.Optional(Name),
  blocked_by: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 100 })),
  group_id: Type.Optional(Label),
  group_title: Type.Optional(Label),
  plan_id: Type.Optional(Label),
  component: Type.Optional(Label),
  milestone: Type.Optional(Label),
  external_ref: Type.Optional(Label),
  a2a_task_id: Type.Optional(Label),
});

/** One task, or a batch (a plan) whose tasks may depend on each other by client-chosen id. */
export const CreateBodySchema = Type.Union([
  TaskInputSchema,
  Type.Object({ tasks: Type.Array(TaskInputSchema, { minItems: 1, maxItems: 500 }), plan_id: Type.Optional(Label) }),
]);

export const BoardQuerySchema = Type.Object({
  status: Type.Optional(Type.String({ maxLength: 200 })),
  assignee: Type.Optional(Name),
  group_id: Type.Optional(Label),
  component: Type.Optional(Label),
  milestone: Type.Optional(Label),
  plan_id: Type.Optional(Label),
  group_by: Type.Optional(Type.Union(TASK_GROUP_FIELDS.map((f) => Type.Literal(f)))),
  format: Type.Optional(Type.Union([Type.Literal('json'), Type.Literal('table')])),
  verbose: Type.Optional(Type.Boolean()),
});

export const IdParamsSchema = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
export const AgentBodySchema = Type.Object({ agent_id: Type.Optional(Name) });
export const FailBodySchema = Type.Object({ reason: Type.String({ minLength: 1, maxLength: 2000 }) });
export const PurgeBodySchema = Type.Object({
  status: Type.Optional(Type.Union([Type.String({ maxLength: 200 }), Type.Array(Type.String({ maxLength: 20 }), { maxItems: 4 })])),
  older_than: Type.Optional(Type.String({ minLength: 1, maxLength: 32 })),
  dry_run: Type.Optional(Type.Boolean()),
});

export const MemoryQuerySchema = Type.Object({
  tag: Type.Optional(Type.String({ minLength: 1, maxLength: 50 })),
  /** The original's filter: comma-separated, any of them. */
  tags: Type.Optional(Type.String({ maxLength: 1100 })),
  author: Type.Optional(Name),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
});
export const SearchQuerySchema = Type.Object({
  q: Type.String({ minLength: 1, maxLength: 1000 }),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200 })),
});
/** A key, or (the original's routes take either) a note's id. */
export const KeyParamsSchema = Type.Object({ key: Type.String({ minLength: 1, maxLength: 200 }) });
export const SaveBodySchema = Type.Object({
  key: Type.String({ minLength: 1, maxLength: 200 }),
  content: Type.String({ minLength: 1, maxLength: 1_000_000 }),
  tags: Type.Optional(Type.Union([Type.Array(Type.String({ maxLength: 50 }), { maxItems: 20 }), Type.String({ maxLength: 1100 })])),
  author: Type.Optional(Name),
  notify: Type.Optional(Type.Boolean()),
});

export const EmptyBodySchema = Type.Object({});

export type CreateBody = Static<typeof CreateBodySchema>;
