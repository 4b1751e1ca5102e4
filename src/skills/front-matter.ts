import fs from 'node:fs';
import path from 'node:path';
import { Type, type Static } from 'typebox';
import { Value } from 'typebox/value';
import { parse as parseYaml } from 'yaml';
import { SynapseError } from '../errors.js';

/** A skill name: also its directory name, so no path separators, dots or capitals. */
export const SKILL_NAME = /^[a-z0-9][a-z0-9-]{0,63}$/;

/** The front matter every SKILL.md starts with (the Agent Skills format Claude Code, Codex and Gemini read). */
const FrontMatterSchema = Type.Object(
  {
    name: Type.String({ pattern: SKILL_NAME.source, description: 'lowercase letters, digits and hyphens, at most 64' }),
    description: Type.String({ minLength: 1, maxLength: 1024, description: 'what the skill does and when to use it' }),
  },
  { additionalProperties: true },
);

export type SkillFrontMatter = Static<typeof FrontMatterSchema>;

export function checkSkillName(name: string): string {
  if (!SKILL_NAME.test(name))
    throw new SynapseError('invalid_input', `"${name}" is not a skill name: use lowercase letters, digits and hyphens (at most 64), e.g. code-review`);
  return name;
}

/** The front matter of a SKILL.md text; a missing or invalid one is an error naming the file and the field. */
export function parseFrontMatter(text: string, file: string): SkillFrontMatter {
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?(?:\n|$)/.exec(text);
  if (!match) throw new SynapseError('invalid_input', `${file} has no front matter: start it with ---, name: and description:, then ---`, { file });
  let data: unknown;
  try {
    data = parseYaml(match[1] ?? '');
  } catch (err) {
    throw new SynapseError('invalid_input', `${file}: the front matter is not YAML (${(err as Error).message.split('\n')[0]})`, { file });
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data))
    throw new SynapseError('invalid_input', `${file}: the front matter must be a YAML mapping with name and description`, { file });
  const first = Value.Errors(FrontMatterSchema, data)[0];
  if (first) {
    const key = first.instancePath.replace(/^\//, '') || String((first.params as { requiredProperties?: string[] }).requiredProperties?.[0] ?? '');
    const field = key || 'front matter';
    throw new SynapseError('invalid_input', `${file}: front matter field "${field}" ${first.message}`, { file, key: field });
  }
  return data as SkillFrontMatter;
}

/** Reads `<dir>/SKILL.md` and checks it; the name must match the directory's (unless `anyDirName`: a cloned repository's root). */
export function readSkillDir(dir: string, anyDirName = false): SkillFrontMatter {
  const file = path.join(dir, 'SKILL.md');
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    throw new SynapseError('invalid_input', `${dir} holds no SKILL.md; a skill is a directory with a SKILL.md`, { file });
  }
  const fm = parseFrontMatter(text, file);
  if (!anyDirName && fm.name !== path.basename(dir))
    throw new SynapseError('invalid_input', `${file}: front matter name "${fm.name}" differs from its directory "${path.basename(dir)}"; make them the same`, {
      file,
      key: 'name',
    });
  return fm;
}
