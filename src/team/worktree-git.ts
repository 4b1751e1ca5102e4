import { spawnSync } from 'node:child_process';
import type { Env } from '../config/paths.js';
import { SynapseError } from '../errors.js';

/** What one git command did. */
export interface GitResult {
  ok: boolean;
  stdout: string;
  stderr: string;
}

/**
 * Runs `git <args>` in `cwd` with the given environment (never a shell). Git's prompts are off:
 * a command that would ask (a merge message editor, credentials) fails instead of hanging.
 */
export function git(cwd: string, args: string[], env: Env): GitResult {
  const res = spawnSync('git', args, {
    cwd,
    env: { ...env, GIT_TERMINAL_PROMPT: '0', GIT_EDITOR: 'true', GIT_MERGE_AUTOEDIT: 'no' },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (res.error) {
    const missing = (res.error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new SynapseError(
      missing ? 'command_not_found' : 'internal',
      missing ? 'git is not on PATH; install git to use worktrees' : `git: ${res.error.message}`,
    );
  }
  return { ok: res.status === 0, stdout: res.stdout, stderr: res.stderr };
}

/** `git <args>` that must succeed: its output, or an error that quotes git's own words. */
export function gitOrThrow(cwd: string, args: string[], env: Env): string {
  const res = git(cwd, args, env);
  if (!res.ok) throw new SynapseError('invalid_input', `git ${args[0]} failed in ${cwd}: ${res.stderr.trim() || res.stdout.trim()}`);
  return res.stdout;
}

/** Paths `git status --porcelain` reports: changed tracked files and, unless `trackedOnly`, untracked ones. */
export function changedFiles(cwd: string, env: Env, trackedOnly = false): string[] {
  const out = gitOrThrow(cwd, ['status', '--porcelain', ...(trackedOnly ? ['--untracked-files=no'] : ['--untracked-files=all'])], env);
  return out
    .split('\n')
    .filter((l) => l.length > 3)
    .map((l) => l.slice(3));
}
