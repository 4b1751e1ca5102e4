import fs from 'node:fs';
import path from 'node:path';
import { gitCheckout } from './project.js';

/**
 * A project as another machine can recognise it (issue 22 §3): its git remote (`origin`, else the
 * first remote) and the branch checked out. Paths mean nothing across hosts, so the
 * working-directory check of `synapse send` compares these for an agent on another host.
 * Read from git's own files, as project.ts does, not by running git.
 */
export interface ProjectIdentity {
  /** The remote URL, normalised (`host/path`, no scheme, user or `.git`), or null without one. */
  remote: string | null;
  /** The branch checked out, or null (detached HEAD, no git). */
  branch: string | null;
}

function readText(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return ''; // not there or not readable: no remote, no branch
  }
}

/** `git@github.com:o/r.git`, `ssh://git@github.com/o/r`, `https://github.com/o/r.git/` → `github.com/o/r`. */
export function normalizeRemote(url: string): string {
  let u = url
    .trim()
    .replace(/\/+$/, '')
    .replace(/\.git$/i, '');
  const scp = /^(?:[^@/]+@)?([^:/]+):(?!\/)(.+)$/.exec(u);
  if (scp && !/^[a-z]+:\/\//i.test(u)) return `${scp[1]!.toLowerCase()}/${scp[2]}`;
  u = u.replace(/^[a-z+]+:\/\//i, '').replace(/^[^@/]+@/, '');
  const slash = u.indexOf('/');
  return slash < 0 ? u.toLowerCase() : `${u.slice(0, slash).toLowerCase().replace(/:\d+$/, '')}${u.slice(slash)}`;
}

/** The remote URLs of a git config file, by remote name. */
function remotes(config: string): Map<string, string> {
  const found = new Map<string, string>();
  let remote: string | null = null;
  for (const raw of config.split('\n')) {
    const line = raw.trim();
    const header = /^\[\s*remote\s+"([^"]+)"\s*\]/i.exec(line);
    if (header) remote = header[1]!;
    else if (line.startsWith('[')) remote = null;
    const m = remote ? /^url\s*=\s*(.+)$/i.exec(line) : null;
    if (remote && m?.[1] && !found.has(remote)) found.set(remote, m[1].trim().replace(/^"(.*)"$/, '$1'));
  }
  return found;
}

export function projectIdentity(dir: string): ProjectIdentity {
  const checkout = gitCheckout(dir);
  if (!checkout) return { remote: null, branch: null };
  const all = remotes(readText(path.join(checkout.commonDir, 'config')));
  const url = all.get('origin') ?? [...all.values()][0];
  const head = /^ref:\s*refs\/heads\/(.+)$/m.exec(readText(path.join(checkout.gitDir, 'HEAD')));
  return { remote: url ? normalizeRemote(url) : null, branch: head?.[1]?.trim() ?? null };
}

/** Why two project identities differ, or null when they are one project on one branch. Unknown never matches. */
export function identityMismatch(mine: ProjectIdentity, theirs: ProjectIdentity): string | null {
  if (!mine.remote || !theirs.remote) return 'no git remote to compare on one side';
  if (mine.remote !== theirs.remote) return `another repository (${theirs.remote}, not ${mine.remote})`;
  if (mine.branch !== theirs.branch) return `branch ${theirs.branch ?? '(detached)'} of this repository, not ${mine.branch ?? '(detached)'}`;
  return null;
}
