import { Type, type Static } from 'typebox';
import { APPROVAL_MODES, DURATION_PATTERN, FLOWS, LIST_COLUMNS } from './keys.js';

/**
 * The one schema of a settings file (user, project and local alike). The build emits it as
 * `schema.generated.json` (scripts/emit-schemas.mjs), which `settings-file.ts` checks files
 * against without importing TypeBox at run time; a unit test keeps the two equal.
 */

const oneOf = <T extends readonly string[]>(values: T) => Type.Union(values.map((v) => Type.Literal(v)));

export const SettingsFileSchema = Type.Object(
  {
    $schema: Type.Optional(Type.String()),
    env: Type.Optional(Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean()]))),
    instructions: Type.Optional(Type.Record(Type.String(), Type.String())),
    approvalMode: Type.Optional(oneOf(APPROVAL_MODES)),
    a2a: Type.Optional(Type.Object({ flow: Type.Optional(oneOf(FLOWS)) }, { additionalProperties: false })),
    list: Type.Optional(Type.Object({ columns: Type.Optional(Type.Array(oneOf(LIST_COLUMNS), { minItems: 1 })) }, { additionalProperties: false })),
    spawn: Type.Optional(
      Type.Object(
        { keepIdle: Type.Optional(Type.String({ pattern: DURATION_PATTERN })), keepTurns: Type.Optional(Type.Integer({ minimum: 0 })) },
        { additionalProperties: false },
      ),
    ),
    /** The original's key: per profile, the CLI flags that mean "this start resumes a conversation". */
    resume_flags: Type.Optional(Type.Record(Type.String(), Type.Array(Type.String({ minLength: 1 })))),
    /** The same as `resume_flags`, in this project's spelling (`resume_flags` wins when both are given in one file). */
    resumeFlags: Type.Optional(Type.Record(Type.String(), Type.Array(Type.String({ minLength: 1 })))),
    /** US dollars per million tokens, per model (or model-name prefix), for the estimated cost in `history stats`. */
    pricing: Type.Optional(
      Type.Record(
        Type.String({ minLength: 1 }),
        Type.Object(
          {
            input: Type.Number({ minimum: 0 }),
            output: Type.Number({ minimum: 0 }),
            cacheRead: Type.Optional(Type.Number({ minimum: 0 })),
            cacheWrite: Type.Optional(Type.Number({ minimum: 0 })),
          },
          { additionalProperties: false },
        ),
      ),
    ),
    store: Type.Optional(Type.Object({ url: Type.Optional(Type.String({ pattern: '^(sqlite:|postgres(ql)?://)' })) }, { additionalProperties: false })),
    hooks: Type.Optional(
      Type.Object({ on_idle: Type.Optional(Type.String()), on_task_completed: Type.Optional(Type.String()) }, { additionalProperties: false }),
    ),
  },
  { additionalProperties: false },
);

export type SettingsFile = Static<typeof SettingsFileSchema>;
