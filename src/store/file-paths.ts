import fs from 'node:fs';
import path from 'node:path';
import { pathInMainCheckout } from '../registry/project.js';

/**
 * One canonical spelling per file, so `./a.ts`, `src/../a.ts` and `/repo/a.ts` (or a path
 * through a symlinked directory) are the same lock. Absolute, with symlinks resolved; for a
 * file that does not exist yet, the nearest existing parent is resolved and the missing
 * segments are appended, so a lock taken before `create` matches the file created later.
 * A file in a linked git worktree is named by its place in the main checkout, so that the
 * worktrees of one repository, which share one lock store, lock the same file as one.
 */
export function normalizeFilePath(input: string, baseDir: string): string {
  return pathInMainCheckout(resolvedPath(input, baseDir));
}

/** A directory's canonical spelling, as `normalizeFilePath` names the files in it (a worktree's root is the main checkout's). */
export function normalizeDirPath(dir: string): string {
  return pathInMainCheckout(resolvedPath('', dir), true);
}

function resolvedPath(input: string, baseDir: string): string {
  if (input.trim().length === 0) return path.resolve(baseDir);
  const absolute = path.resolve(baseDir, input);
  const missing: string[] = [];
  let current = absolute;
  for (;;) {
    try {
      const real = fs.realpathSync.native(current);
      return missing.length === 0 ? real : path.join(real, ...missing.reverse());
    } catch {
      // Not there (or unreadable, or a symlink loop): resolve what we can of its parent.
      const parent = path.dirname(current);
      if (parent === current) return absolute;
      missing.push(path.basename(current));
      current = parent;
    }
  }
}
