import { Type, type Static, type TSchema } from 'typebox';
import { Value } from 'typebox/value';
import { SynapseError } from '../errors.js';

/**
 * The body schema of every Canvas card type. A card is `{type, title, body}`; its body is checked
 * here before it is stored, whoever posts it (the CLI, the HTTP route, `post-raw`). Markdown and
 * HTML are stored as given and sanitised where they are shown (DOMPurify in the dashboard).
 */

const Text = (maxLength = 200_000) => Type.String({ maxLength });
const Short = Type.String({ maxLength: 500 });
const Cell = Type.Union([Type.String({ maxLength: 10_000 }), Type.Number(), Type.Boolean(), Type.Null()]);

const STEP_STATUSES = ['proposed', 'active', 'completed', 'cancelled'] as const;
export type StepStatus = (typeof STEP_STATUSES)[number];

const PlanStep = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9_.-]+$' }),
    title: Type.String({ minLength: 1, maxLength: 500 }),
    description: Type.Optional(Text(20_000)),
    depends_on: Type.Optional(Type.Array(Type.String({ maxLength: 100 }), { maxItems: 100 })),
    status: Type.Optional(Type.Union(STEP_STATUSES.map((s) => Type.Literal(s)))),
    component: Type.Optional(Short),
    assignee: Type.Optional(Short),
    priority: Type.Optional(Type.Integer({ minimum: 1, maximum: 5 })),
    /** Set by `synapse tasks accept-plan`: the board task this step became. */
    task_id: Type.Optional(Type.String({ maxLength: 100 })),
  },
  { additionalProperties: false },
);

/** The plain card bodies: each can also appear as a block inside a layout template. */
const BLOCK_SCHEMAS = {
  mermaid: Text(),
  markdown: Text(),
  html: Text(),
  terminal: Text(),
  table: Type.Object(
    { headers: Type.Array(Type.String({ maxLength: 1000 }), { maxItems: 100 }), rows: Type.Array(Type.Array(Cell, { maxItems: 100 }), { maxItems: 10_000 }) },
    { additionalProperties: false },
  ),
  chart: Type.Object(
    {
      type: Type.Union(['bar', 'line', 'pie', 'doughnut', 'radar', 'polarArea', 'scatter'].map((t) => Type.Literal(t))),
      labels: Type.Optional(Type.Array(Type.Union([Type.String({ maxLength: 200 }), Type.Number()]), { maxItems: 10_000 })),
      datasets: Type.Array(
        Type.Object(
          {
            label: Type.Optional(Short),
            data: Type.Array(Type.Union([Type.Number(), Type.Null(), Type.Object({ x: Type.Number(), y: Type.Number() })]), { maxItems: 10_000 }),
          },
          { additionalProperties: false },
        ),
        { minItems: 1, maxItems: 50 },
      ),
    },
    { additionalProperties: false },
  ),
  code: Type.Object(
    { code: Text(), language: Type.Optional(Type.String({ maxLength: 50, pattern: '^[A-Za-z0-9_+#.-]*$' })), filename: Type.Optional(Short) },
    { additionalProperties: false },
  ),
  diff: Type.Union([Text(), Type.Object({ before: Text(), after: Text(), filename: Type.Optional(Short) }, { additionalProperties: false })]),
  image: Type.Object(
    {
      src: Type.String({ maxLength: 5_000_000, pattern: '^(https?://|data:image/(png|jpeg|gif|webp|svg\\+xml);base64,)' }),
      alt: Type.Optional(Short),
    },
    { additionalProperties: false },
  ),
  link: Type.Object(
    {
      url: Type.String({ maxLength: 4000, pattern: '^https?://' }),
      title: Type.Optional(Short),
      description: Type.Optional(Type.String({ maxLength: 2000 })),
    },
    { additionalProperties: false },
  ),
  progress: Type.Object(
    {
      value: Type.Number({ minimum: 0 }),
      max: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
      label: Type.Optional(Short),
      steps: Type.Optional(Type.Array(Short, { maxItems: 100 })),
    },
    { additionalProperties: false },
  ),
  'dependency-graph': Type.Object(
    {
      nodes: Type.Array(
        Type.Object(
          { id: Type.String({ minLength: 1, maxLength: 100 }), label: Type.Optional(Short), status: Type.Optional(Type.String({ maxLength: 50 })) },
          { additionalProperties: false },
        ),
        { maxItems: 500 },
      ),
      edges: Type.Array(
        Type.Object(
          { from: Type.String({ maxLength: 100 }), to: Type.String({ maxLength: 100 }), label: Type.Optional(Short) },
          { additionalProperties: false },
        ),
        { maxItems: 2000 },
      ),
    },
    { additionalProperties: false },
  ),
  cost: Type.Object(
    {
      currency: Type.Optional(Type.String({ maxLength: 10 })),
      items: Type.Array(
        Type.Object(
          {
            label: Type.String({ maxLength: 200 }),
            input_tokens: Type.Optional(Type.Integer({ minimum: 0 })),
            output_tokens: Type.Optional(Type.Integer({ minimum: 0 })),
            cost: Type.Number({ minimum: 0 }),
          },
          { additionalProperties: false },
        ),
        { maxItems: 1000 },
      ),
    },
    { additionalProperties: false },
  ),
} satisfies Record<string, TSchema>;

type BlockType = keyof typeof BLOCK_SCHEMAS;
const BLOCK_TYPES = Object.keys(BLOCK_SCHEMAS) as BlockType[];

/** A plain card inside a template: `{type, body}`. */
const Block = Type.Union(BLOCK_TYPES.map((t) => Type.Object({ type: Type.Literal(t), body: BLOCK_SCHEMAS[t] }, { additionalProperties: false })));

const Section = Type.Object(
  { title: Type.Optional(Short), content: Type.Optional(Text(50_000)), block: Type.Optional(Block) },
  { additionalProperties: false },
);

/** Layout templates: several blocks arranged one way. */
const TEMPLATE_SCHEMAS = {
  briefing: Type.Object({ summary: Type.Optional(Text(50_000)), sections: Type.Array(Section, { maxItems: 50 }) }, { additionalProperties: false }),
  comparison: Type.Object({ items: Type.Array(Section, { minItems: 2, maxItems: 6 }) }, { additionalProperties: false }),
  dashboard: Type.Object({ widgets: Type.Array(Section, { maxItems: 24 }) }, { additionalProperties: false }),
  steps: Type.Object(
    {
      steps: Type.Array(
        Type.Object(
          {
            title: Type.String({ minLength: 1, maxLength: 500 }),
            description: Type.Optional(Text(20_000)),
            status: Type.Optional(Type.Union(['pending', 'active', 'done', 'failed', 'skipped'].map((s) => Type.Literal(s)))),
          },
          { additionalProperties: false },
        ),
        { minItems: 1, maxItems: 100 },
      ),
    },
    { additionalProperties: false },
  ),
  slides: Type.Object({ slides: Type.Array(Section, { minItems: 1, maxItems: 100 }) }, { additionalProperties: false }),
  plan: Type.Object(
    {
      description: Type.Optional(Text(50_000)),
      steps: Type.Array(PlanStep, { minItems: 1, maxItems: 200 }),
      /** Set by `synapse tasks accept-plan`. */
      accepted_at: Type.Optional(Type.String({ maxLength: 50 })),
    },
    { additionalProperties: false },
  ),
} satisfies Record<string, TSchema>;

export type PlanBody = Static<typeof TEMPLATE_SCHEMAS.plan>;

const CARD_SCHEMAS = { ...BLOCK_SCHEMAS, ...TEMPLATE_SCHEMAS };
export type CardType = keyof typeof CARD_SCHEMAS;
export const CARD_TYPES = Object.keys(CARD_SCHEMAS) as CardType[];

function isCardType(value: string): value is CardType {
  return Object.hasOwn(CARD_SCHEMAS, value);
}

export function parseCardType(value: string): CardType {
  if (!isCardType(value)) throw new SynapseError('invalid_input', `unknown card type '${value}': use one of ${CARD_TYPES.join(', ')}`, { type: value });
  return value;
}

/** Checks a body against its type's schema; the error names the first problem and where. */
export function validateBody(type: CardType, body: unknown): unknown {
  const schema = CARD_SCHEMAS[type];
  if (Value.Check(schema, body)) {
    if (type === 'plan') checkPlanGraph(body as PlanBody);
    return body;
  }
  const first = Value.Errors(schema, body)[0];
  const where = first?.instancePath ? `body${first.instancePath}` : 'body';
  throw new SynapseError('invalid_input', `a ${type} card's ${where} ${first?.message ?? 'is not valid'}`, { type });
}

/** Step ids are unique and every dependency names another step. */
function checkPlanGraph(plan: PlanBody): void {
  const ids = new Set<string>();
  for (const s of plan.steps) {
    if (ids.has(s.id)) throw new SynapseError('invalid_input', `plan step id '${s.id}' is used twice`);
    ids.add(s.id);
  }
  for (const s of plan.steps) {
    for (const d of s.depends_on ?? []) {
      if (!ids.has(d) || d === s.id) throw new SynapseError('invalid_input', `plan step '${s.id}' depends on '${d}', which is not another step of the plan`);
    }
  }
}
