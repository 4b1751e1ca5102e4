import fs from 'node:fs';
import path from 'node:path';
import { checkSkillName } from './front-matter.js';
import { sameTree } from './tree.js';
import { sourceOf, type SkillEntry } from './catalog.js';
import { cliSkillsDir, dirKindFor, type ScopeContext, type SkillDirKind } from './scopes.js';

export interface Deployed {
  name: string;
  from: string;
  to: string;
  /** False when `to` already held the same files (nothing was written). */
  changed: boolean;
}

/** Copies one skill folder to `<root>/<name>`, replacing what was there (written beside it, then renamed into place). */
export function copySkill(source: SkillEntry, root: string): Deployed {
  const to = path.join(root, source.name);
  if (path.resolve(source.path) === path.resolve(to)) return { name: source.name, from: source.path, to, changed: false };
  if (sameTree(source.path, to)) return { name: source.name, from: source.path, to, changed: false };
  fs.mkdirSync(root, { recursive: true });
  const staging = fs.mkdtempSync(path.join(root, `.${source.name}-`));
  try {
    fs.cpSync(source.path, staging, { recursive: true, filter: (src) => path.basename(src) !== '.git' });
    fs.rmSync(to, { recursive: true, force: true });
    fs.renameSync(staging, to);
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
  return { name: source.name, from: source.path, to, changed: true };
}

/** The folders to deploy into for these agent CLIs (`claude` → `.claude/skills`, the others → `.agents/skills`), each once. */
export function deployRoots(agents: readonly string[], scope: 'user' | 'project', ctx: ScopeContext): string[] {
  const kinds = [...new Set(agents.map(dirKindFor))] as SkillDirKind[];
  return kinds.map((k) => cliSkillsDir(k, scope, ctx));
}

/** `synapse skills deploy`: copies a skill where the given CLIs read it. */
export function deploySkill(name: string, agents: readonly string[], scope: 'user' | 'project', ctx: ScopeContext): Deployed[] {
  const source = sourceOf(checkSkillName(name), ctx);
  return deployRoots(agents, scope, ctx).map((root) => copySkill(source, root));
}
