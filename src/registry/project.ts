import fs from 'node:fs';
import path from 'node:path';

/**
 * The project a working directory belongs to, as one comparable key. Today: the directory's
 * real path (symlinks resolved), so `/tmp/x` and its symlink `/var/tmp/x` are one project.
 * This is the one place that decides it; a later change makes it the git repository (its
 * common directory, so every worktree of a repository is one project).
 */
export function projectKey(dir: string): string {
  try {
    return fs.realpathSync.native(dir);
  } catch (err) {
    // A working dir that is gone (or that we may not read) still names a project: compare it
    // by its absolute path, which is all we can know about it.
    if (['ENOENT', 'ENOTDIR', 'EACCES', 'ELOOP'].includes((err as NodeJS.ErrnoException).code ?? '')) return path.resolve(dir);
    throw err;
  }
}

/** True when two working directories belong to the same project (see `projectKey`). */
export function sameProject(dirA: string, dirB: string): boolean {
  return projectKey(dirA) === projectKey(dirB);
}
