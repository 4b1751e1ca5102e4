import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/**
 * A real git repository in `dir` with one commit, for worktree tests. Git reads a throw-away
 * global config (GIT_CONFIG_GLOBAL, added to `env`) and no system config, never the user's.
 */
export function gitRepo(dir: string, env: NodeJS.ProcessEnv, files: Record<string, string> = { 'a.txt': 'a\n' }): (cwd: string, ...args: string[]) => string {
  const gitconfig = path.join(path.dirname(dir), `${path.basename(dir)}.gitconfig`);
  fs.writeFileSync(gitconfig, '[user]\n\tname = Test\n\temail = test@example.com\n[init]\n\tdefaultBranch = main\n');
  env.GIT_CONFIG_GLOBAL = gitconfig;
  env.GIT_CONFIG_NOSYSTEM = '1';
  const git = (cwd: string, ...args: string[]): string => execFileSync('git', args, { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  fs.mkdirSync(dir, { recursive: true });
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  }
  git(dir, 'init', '-q');
  git(dir, 'add', '.');
  git(dir, 'commit', '-qm', 'initial');
  return git;
}
