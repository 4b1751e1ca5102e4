import fs from 'node:fs';
import path from 'node:path';

/**
 * Which project a directory belongs to. A project is its git repository, named by the git common
 * directory (`git rev-parse --git-common-dir`): the main checkout and every worktree of one
 * repository are one project and share one team store (board, locks, memory). Without git, the
 * directory itself is the project.
 *
 * The common directory is found the way git finds it, by reading the files it leaves (a `.git`
 * directory, or a `.git` file naming a gitdir whose `commondir` file names the shared one), not by
 * running git: every store access asks, and a git process per question would cost each command
 * tens of milliseconds.
 */

/** Where a directory sits in a git repository. */
export interface GitCheckout {
  /** The top of the checkout that holds the directory (where its `.git` entry is). */
  top: string;
  /** The checkout's own git directory (for a linked worktree, `<common>/worktrees/<id>`). */
  gitDir: string;
  /** The repository's common git directory, shared by all its worktrees: the project's identity. */
  commonDir: string;
  /** True for a linked worktree (`git worktree add`), false for the main checkout. */
  linked: boolean;
}

/** The real path of a directory, or its absolute path when it is gone or unreadable. */
function realDir(dir: string): string {
  try {
    return fs.realpathSync.native(dir);
  } catch (err) {
    // A working dir that is gone (or that we may not read) still names a project: compare it
    // by its absolute path, which is all we can know about it.
    if (['ENOENT', 'ENOTDIR', 'EACCES', 'ELOOP'].includes((err as NodeJS.ErrnoException).code ?? '')) return path.resolve(dir);
    throw err;
  }
}

function readText(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch {
    // Not there or not readable: the caller treats it as "not a git file".
    return null;
  }
}

/** `.git` as a file (`gitdir: <path>`, a linked worktree or a submodule) → the git directory it names. */
function gitDirOfFile(dotGit: string): string | null {
  const m = /^gitdir:\s*(.+)$/m.exec(readText(dotGit) ?? '');
  return m?.[1] ? realDir(path.resolve(path.dirname(dotGit), m[1].trim())) : null;
}

/** The git checkout holding `dir` (searching upwards), or null outside git. */
export function gitCheckout(dir: string): GitCheckout | null {
  let current = realDir(dir);
  for (;;) {
    const dotGit = path.join(current, '.git');
    let stat: fs.Stats | undefined;
    try {
      stat = fs.statSync(dotGit);
    } catch {
      // No `.git` here: look one level up.
    }
    if (stat?.isDirectory() && fs.existsSync(path.join(dotGit, 'HEAD'))) return { top: current, gitDir: dotGit, commonDir: dotGit, linked: false };
    if (stat?.isFile()) {
      const gitDir = gitDirOfFile(dotGit);
      if (gitDir) {
        const common = readText(path.join(gitDir, 'commondir'));
        if (common === null) return { top: current, gitDir, commonDir: gitDir, linked: false };
        return { top: current, gitDir, commonDir: realDir(path.resolve(gitDir, common)), linked: true };
      }
    }
    const parent = path.dirname(current);
    if (parent === current) return null;
    current = parent;
  }
}

/**
 * The project of a working directory, as one comparable key: the git common directory, or,
 * outside git, the directory's real path (symlinks resolved, so `/tmp/x` and its symlink are one).
 */
export function projectKey(dir: string): string {
  return gitCheckout(dir)?.commonDir ?? realDir(dir);
}

/** True when two working directories belong to the same project (see `projectKey`). */
export function sameProject(dirA: string, dirB: string): boolean {
  return projectKey(dirA) === projectKey(dirB);
}

/** True when two working directories are the same directory (symlinks resolved): what `send` compares. */
export function sameWorkingDir(dirA: string, dirB: string): boolean {
  return realDir(dirA) === realDir(dirB);
}

/** `core.worktree` of a git config file (a submodule's names its working tree), or null. */
function coreWorktree(commonDir: string): string | null {
  let section = '';
  for (const raw of (readText(path.join(commonDir, 'config')) ?? '').split('\n')) {
    const line = raw.trim();
    const header = /^\[([^\]\s"]+)/.exec(line);
    if (header) section = header[1]!.toLowerCase();
    const m = section === 'core' ? /^worktree\s*=\s*(.+)$/i.exec(line) : null;
    if (m?.[1]) return path.resolve(commonDir, m[1].trim().replace(/^"(.*)"$/, '$1'));
  }
  return null;
}

/**
 * The directory whose `.synapse/` holds the project's shared store, the same for every worktree
 * and subdirectory of a repository: the main checkout (the parent of a `.git` common directory,
 * or the `core.worktree` of a submodule's). Where git itself cannot name a main checkout (a bare
 * repository, `--separate-git-dir`), the common directory is the shared place. Outside git: `dir`.
 */
export function projectRoot(dir: string): string {
  const checkout = gitCheckout(dir);
  if (!checkout) return path.resolve(dir);
  if (path.basename(checkout.commonDir) === '.git') return path.dirname(checkout.commonDir);
  return coreWorktree(checkout.commonDir) ?? checkout.commonDir;
}

/**
 * The same file as seen from the project's main checkout: a path inside a linked worktree of
 * the repository becomes the path at the same place in the main checkout, so that a lock taken
 * on `src/a.ts` in one worktree holds `src/a.ts` in every other. Other paths are returned as given.
 */
export function pathInMainCheckout(absolute: string, isDirectory = false): string {
  const checkout = gitCheckout(isDirectory ? absolute : path.dirname(absolute));
  if (!checkout?.linked) return absolute;
  const relative = path.relative(checkout.top, absolute);
  if (relative.startsWith('..') || path.isAbsolute(relative)) return absolute;
  return path.join(projectRoot(checkout.top), relative);
}
