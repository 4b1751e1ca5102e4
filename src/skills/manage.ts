import fs from 'node:fs';
import path from 'node:path';
import { SynapseError } from '../errors.js';
import { findSkill, type SkillEntry } from './catalog.js';
import { copySkill } from './deploy.js';
import { checkSkillName } from './front-matter.js';
import { centralStore, cliSkillsDir, WRITABLE_SCOPES, type ScopeContext, type SkillDirKind, type SkillScope } from './scopes.js';

/** The writable copies of `name` (optionally only in `scope`); none is an error that says where it is instead. */
export function writableCopies(name: string, ctx: ScopeContext, scope?: SkillScope): SkillEntry[] {
  checkSkillName(name);
  const all = findSkill(name, ctx);
  const copies = all.filter((s) => (WRITABLE_SCOPES as readonly string[]).includes(s.scope) && (!scope || s.scope === scope));
  if (copies.length > 0) return copies;
  const readOnly = all.filter((s) => s.scope === 'plugin' || s.scope === 'builtin');
  if (readOnly.length > 0 && !scope)
    throw new SynapseError('invalid_input', `skill "${name}" is only in read-only scopes (${readOnly.map((s) => `${s.scope}: ${s.path}`).join(', ')})`, {
      name,
    });
  throw new SynapseError('not_found', `no skill "${name}"${scope ? ` in scope ${scope}` : ''}; see \`synapse skills list\``, { name });
}

/** Removes skill folders (the caller has asked for confirmation). */
export function deleteCopies(copies: readonly SkillEntry[]): void {
  for (const c of copies) fs.rmSync(c.path, { recursive: true, force: true });
}

/** The folder a writable scope keeps skills in; user and project have one per CLI family. */
export function scopeRoot(scope: SkillScope, kind: SkillDirKind, ctx: ScopeContext): string {
  if (scope === 'synapse') return centralStore(ctx.env);
  if (scope === 'user' || scope === 'project') return cliSkillsDir(kind, scope, ctx);
  throw new SynapseError('usage', `scope ${scope} is read-only: use synapse, user or project`);
}

/** `synapse skills move`: one writable copy to another scope (copied there, then removed here). */
export function moveSkill(name: string, to: SkillScope, kind: SkillDirKind, ctx: ScopeContext, from?: SkillScope): { from: string; to: string } {
  const copies = writableCopies(name, ctx, from);
  if (copies.length > 1)
    throw new SynapseError('usage', `skill "${name}" is in ${copies.length} places (${copies.map((c) => c.path).join(', ')}); say which with --from <scope>`, {
      name,
    });
  const source = copies[0]!;
  const root = scopeRoot(to, kind, ctx);
  const target = path.join(root, name);
  if (path.resolve(target) === path.resolve(source.path)) throw new SynapseError('usage', `skill "${name}" is already in ${source.path}`);
  const done = copySkill(source, root);
  fs.rmSync(source.path, { recursive: true, force: true });
  return { from: source.path, to: done.to };
}

/** `synapse skills import`: copies a skill from any other scope into the central store. */
export function importSkill(name: string, ctx: ScopeContext, from?: SkillScope): { from: string; to: string; changed: boolean } {
  checkSkillName(name);
  const candidates = findSkill(name, ctx).filter((s) => s.scope !== 'synapse' && s.valid && (!from || s.scope === from));
  const source = candidates[0];
  if (!source)
    throw new SynapseError('not_found', `no skill "${name}" outside the central store${from ? ` in scope ${from}` : ''}; see \`synapse skills list\``, {
      name,
    });
  const done = copySkill(source, centralStore(ctx.env));
  return { from: source.path, to: done.to, changed: done.changed };
}

const TEMPLATE = (name: string) => `---
name: ${name}
description: One sentence on what this skill does, then when to use it ("Use when …"). Agents read this to decide whether to load the skill.
---

# ${name}

What to do, step by step, in this project. Keep it short and practical: commands that run as
written, the order that matters, the mistakes to avoid.

## Steps

1. …

## Commands

\`\`\`bash
synapse list
\`\`\`

Longer material goes in references/ and is linked from here.
`;

/** `synapse skills create <name>`: a SKILL.md template in `root` (never over an existing skill). */
export function createSkill(name: string, root: string): string {
  checkSkillName(name);
  const dir = path.join(root, name);
  if (fs.existsSync(dir)) throw new SynapseError('conflict', `${dir} exists already; pick another name or edit it`, { dir });
  fs.mkdirSync(path.join(dir, 'references'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'SKILL.md'), TEMPLATE(name));
  return dir;
}
