import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readDirNames } from '../json-file.js';
import { envSetting } from '../config/env-setting.js';
import { home, synapseHome, type Env } from '../config/paths.js';
import { SynapseError } from '../errors.js';

/**
 * Where skills live. Writable: `synapse` (the central store), `user` and `project`. Read-only:
 * `plugin` (`<project>/plugins/<p>/skills`) and `builtin` (the skills shipped with Synapse).
 */
export type SkillScope = 'synapse' | 'user' | 'project' | 'plugin' | 'builtin';
export const SCOPES: readonly SkillScope[] = ['synapse', 'user', 'project', 'plugin', 'builtin'];
export const WRITABLE_SCOPES: readonly SkillScope[] = ['synapse', 'user', 'project'];

/** The two skill folders CLIs read: Claude Code reads `.claude/skills`; Codex, Gemini, OpenCode and Copilot read `.agents/skills`. */
export type SkillDirKind = 'claude' | 'agents';

/** Which folder an agent's CLI reads. The echo agent (no CLI) gets the generic `.agents/skills`. */
export function dirKindFor(agentType: string): SkillDirKind {
  return agentType === 'claude' || agentType === 'claude-code' ? 'claude' : 'agents';
}

export interface SkillRoot {
  scope: SkillScope;
  /** The folder that holds one sub-folder per skill. */
  dir: string;
  /** Which CLIs read it: `claude`, `agents` or, for the stores no CLI reads directly, null. */
  kind: SkillDirKind | null;
}

export interface ScopeContext {
  env: Env;
  /** The project directory (`./.claude/skills`, `./.agents/skills` and `./plugins` are under it). */
  cwd: string;
}

/** The central store: `~/.synapse/skills`, or `SYNAPSE_SKILLS_DIR`. */
export function centralStore(env: Env): string {
  return envSetting(env, 'SYNAPSE_SKILLS_DIR') ?? path.join(synapseHome(env), 'skills');
}

/** The folder a CLI of `kind` reads in `user` (HOME) or `project` (cwd) scope. */
export function cliSkillsDir(kind: SkillDirKind, scope: 'user' | 'project', ctx: ScopeContext): string {
  return path.join(scope === 'user' ? home(ctx.env) : ctx.cwd, kind === 'claude' ? '.claude' : '.agents', 'skills');
}

/** The repository (or installed package) root: `skills/`, `plugins/` and `templates/` are under it. */
export const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The skills shipped with Synapse (`skills/` of the package). */
export function builtinSkillsDir(): string {
  return path.join(PACKAGE_ROOT, 'skills');
}

/** Every skill folder of `scope`, in the order lookups try them. */
export function rootsOf(scope: SkillScope, ctx: ScopeContext): SkillRoot[] {
  switch (scope) {
    case 'synapse':
      return [{ scope, dir: centralStore(ctx.env), kind: null }];
    case 'user':
    case 'project':
      return (['claude', 'agents'] as const).map((kind) => ({ scope, dir: cliSkillsDir(kind, scope, ctx), kind }));
    case 'plugin': {
      const plugins = path.join(ctx.cwd, 'plugins');
      return readDirNames(plugins)
        .sort()
        .map((p) => ({ scope, dir: path.join(plugins, p, 'skills'), kind: 'claude' as const }));
    }
    case 'builtin':
      return [{ scope, dir: builtinSkillsDir(), kind: null }];
  }
}

export function parseScope(value: string, allowed: readonly SkillScope[] = SCOPES): SkillScope {
  if (!(allowed as readonly string[]).includes(value)) throw new SynapseError('usage', `unknown scope "${value}": use one of ${allowed.join(', ')}`);
  return value as SkillScope;
}
