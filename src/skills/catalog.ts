import fs from 'node:fs';
import path from 'node:path';
import { readDirNames } from '../json-file.js';
import { SynapseError } from '../errors.js';
import { parseFrontMatter, SKILL_NAME } from './front-matter.js';
import { rootsOf, SCOPES, type ScopeContext, type SkillDirKind, type SkillScope } from './scopes.js';

/** One skill found in one place. */
export interface SkillEntry {
  name: string;
  /** From the front matter; a SKILL.md that does not parse shows its error here instead. */
  description: string;
  scope: SkillScope;
  /** The skill's own folder. */
  path: string;
  /** Which CLIs read it where it is (null: the central store or the shipped copy, read by none directly). */
  kind: SkillDirKind | null;
  /** False when its SKILL.md is missing or its front matter invalid. */
  valid: boolean;
}

function entryOf(dir: string, scope: SkillScope, kind: SkillDirKind | null): SkillEntry | null {
  const name = path.basename(dir);
  const file = path.join(dir, 'SKILL.md');
  if (!SKILL_NAME.test(name) || !fs.existsSync(file)) return null;
  try {
    const fm = parseFrontMatter(fs.readFileSync(file, 'utf8'), file);
    return { name, description: fm.description, scope, path: dir, kind, valid: fm.name === name };
  } catch (err) {
    return { name, description: `invalid: ${(err as Error).message}`, scope, path: dir, kind, valid: false };
  }
}

/** Every skill in the given scopes (all by default), scope by scope, names sorted within each folder. */
export function listSkills(ctx: ScopeContext, scopes: readonly SkillScope[] = SCOPES): SkillEntry[] {
  const out: SkillEntry[] = [];
  for (const scope of scopes)
    for (const root of rootsOf(scope, ctx))
      for (const name of readDirNames(root.dir).sort()) {
        const entry = entryOf(path.join(root.dir, name), scope, root.kind);
        if (entry) out.push(entry);
      }
  return out;
}

/** Every copy of `name`, in lookup order (synapse, user, project, plugin, builtin). */
export function findSkill(name: string, ctx: ScopeContext, scopes: readonly SkillScope[] = SCOPES): SkillEntry[] {
  return listSkills(ctx, scopes).filter((s) => s.name === name);
}

/** The copy to deploy from: the first valid one in lookup order; none is an error saying how to get it. */
export function sourceOf(name: string, ctx: ScopeContext): SkillEntry {
  const found = findSkill(name, ctx).filter((s) => s.valid);
  const first = found[0];
  if (!first)
    throw new SynapseError('not_found', `no skill "${name}" in any scope; see \`synapse skills list\`, or add it with \`synapse skills add <path|git-url>\``, {
      name,
    });
  return first;
}
