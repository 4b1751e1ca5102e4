import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Type, type Static } from 'typebox';
import { Value } from 'typebox/value';
import { SynapseError } from '../errors.js';
import { projectSynapseDir, synapseHome, type Env } from './paths.js';

/** The trigger names a team role's `when` may list. */
const TRIGGERS = ['file_count', 'directories', 'missing_tests', 'prompt_chars', 'keywords'] as const;

const TriggerName = Type.Union(TRIGGERS.map((t) => Type.Literal(t)));

const SuggestConfigSchema = Type.Object({
  triggers: Type.Object(
    {
      file_count: Type.Optional(Type.Integer({ minimum: 1 })),
      directories: Type.Optional(Type.Integer({ minimum: 2 })),
      missing_tests: Type.Optional(Type.Boolean()),
      prompt_chars: Type.Optional(Type.Integer({ minimum: 1 })),
      keywords: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
    },
    { additionalProperties: false },
  ),
  team: Type.Array(
    Type.Object(
      {
        role: Type.String({ minLength: 1 }),
        profile: Type.Optional(Type.String({ minLength: 1 })),
        when: Type.Array(TriggerName, { minItems: 1 }),
        per: Type.Optional(Type.Literal('directory')),
        max: Type.Optional(Type.Integer({ minimum: 1 })),
        task: Type.String({ minLength: 1 }),
      },
      { additionalProperties: false },
    ),
  ),
});
export type SuggestConfig = Static<typeof SuggestConfigSchema>;

/** The default shipped with the package (`<package>/templates/synapse/suggest.yaml`). */
const SHIPPED = fileURLToPath(new URL('../../templates/synapse/suggest.yaml', import.meta.url));

/** The suggest.yaml in force: the project's `.synapse/`, else the user's `~/.synapse/`, else the shipped one. */
export function suggestConfigFile(cwd: string, env: Env): string {
  const candidates = [path.join(projectSynapseDir(cwd), 'suggest.yaml'), path.join(synapseHome(env), 'suggest.yaml')];
  return candidates.find((f) => fs.existsSync(f)) ?? SHIPPED;
}

/** Reads and validates one suggest.yaml; a bad file is an error naming the file, the key and what was expected. */
export async function loadSuggestConfig(file: string): Promise<SuggestConfig> {
  const { parse } = await import('yaml');
  let value: unknown;
  try {
    value = parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new SynapseError('invalid_input', `cannot read ${file}: ${(err as Error).message}`, { file });
  }
  if (Value.Check(SuggestConfigSchema, value)) return value;
  const first = Value.Errors(SuggestConfigSchema, value)[0];
  const key = first?.instancePath ? first.instancePath.slice(1).replace(/\//g, '.') : '(top level)';
  throw new SynapseError('invalid_input', `${file}: key ${key} ${first?.message ?? 'is invalid'}; fix the file or remove it to use the default`, {
    file,
  });
}
