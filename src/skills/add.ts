import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Env } from '../config/paths.js';
import { SynapseError } from '../errors.js';
import { copySkill, type Deployed } from './deploy.js';
import { readSkillDir } from './front-matter.js';

/** A git URL rather than a local path: `https://…`, `ssh://…`, `git@host:…`, `file://…` or `….git`. */
export function isGitUrl(source: string): boolean {
  return /^(https?|ssh|git|file):\/\//.test(source) || /^[\w.-]+@[\w.-]+:/.test(source) || (source.endsWith('.git') && !fs.existsSync(source));
}

/** The skill folders in `dir`: itself when it holds a SKILL.md, else its sub-folders that do (and `skills/*`). */
function skillDirsIn(dir: string): string[] {
  if (fs.existsSync(path.join(dir, 'SKILL.md'))) return [dir];
  const out: string[] = [];
  for (const base of [dir, path.join(dir, 'skills')]) {
    if (!fs.existsSync(base)) continue;
    for (const name of fs.readdirSync(base).sort()) if (fs.existsSync(path.join(base, name, 'SKILL.md'))) out.push(path.join(base, name));
  }
  return out;
}

/** Clones `url` (shallow) into a temp dir; git runs with an argument list, never a shell. */
function clone(url: string, env: Env): { dir: string; cleanup: () => void } {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'synapse-skill-'));
  const dir = path.join(tmp, 'repo');
  // Only the ordinary transports: never `ext::` (which runs a command) or other helpers.
  const r = spawnSync(
    'git',
    [
      '-c',
      'protocol.allow=never',
      '-c',
      'protocol.https.allow=always',
      '-c',
      'protocol.http.allow=always',
      '-c',
      'protocol.ssh.allow=always',
      '-c',
      'protocol.git.allow=always',
      '-c',
      'protocol.file.allow=always',
      'clone',
      '--depth',
      '1',
      '--quiet',
      '--',
      url,
      dir,
    ],
    { encoding: 'utf8', env: { ...env, GIT_TERMINAL_PROMPT: '0' } },
  );
  const cleanup = () => fs.rmSync(tmp, { recursive: true, force: true });
  if (r.error || r.status !== 0) {
    cleanup();
    const why = r.error ? r.error.message : (r.stderr || '').trim().split('\n').at(-1) || `git exited ${r.status}`;
    throw new SynapseError('invalid_input', `cannot clone ${url}: ${why}`, { url });
  }
  return { dir, cleanup };
}

/**
 * `synapse skills add <path|git-url>`: every skill found there (a skill folder, or a folder of
 * them) is checked (SKILL.md front matter: name = folder name, a description) and copied into
 * `root`. One invalid skill stops the whole add before anything is copied.
 */
export function addSkills(source: string, root: string, cwd: string, env: Env): Deployed[] {
  const fetched = isGitUrl(source) ? clone(source, env) : null;
  try {
    const dir = fetched ? fetched.dir : path.resolve(cwd, source);
    if (!fetched && !fs.existsSync(dir)) throw new SynapseError('invalid_input', `${dir} does not exist; give a skill folder, a folder of skills or a git URL`);
    const dirs = skillDirsIn(dir);
    if (dirs.length === 0) throw new SynapseError('invalid_input', `no SKILL.md in ${source} (nor in its sub-folders or skills/*)`);
    const skills = dirs.map((d) => ({ dir: d, fm: readSkillDir(d, d === dir) }));
    return skills.map((s) => copySkill({ name: s.fm.name, description: s.fm.description, scope: 'synapse', path: s.dir, kind: null, valid: true }, root));
  } finally {
    fetched?.cleanup();
  }
}
