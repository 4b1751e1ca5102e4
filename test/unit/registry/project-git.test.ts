import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { gitCheckout, pathInMainCheckout, projectKey, projectRoot, sameProject, sameWorkingDir } from '../../../src/registry/project.js';
import { normalizeFilePath } from '../../../src/store/file-paths.js';
import { boardDbPath, fileSafetyDbPath, memoryDbPath } from '../../../src/store/settings.js';

let root: string;
let env: NodeJS.ProcessEnv;

/** Real git, with a throw-away global config: never the user's. */
function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'synapse-project-git-')));
  const gitconfig = path.join(root, 'gitconfig');
  fs.writeFileSync(gitconfig, '[user]\n\tname = Test\n\temail = test@example.com\n[init]\n\tdefaultBranch = main\n');
  env = { PATH: process.env.PATH, HOME: root, GIT_CONFIG_GLOBAL: gitconfig, GIT_CONFIG_NOSYSTEM: '1' };
  fs.mkdirSync(path.join(root, 'repo', 'src', 'deep'), { recursive: true });
  fs.writeFileSync(path.join(root, 'repo', 'src', 'a.ts'), 'a\n');
  git(path.join(root, 'repo'), 'init', '-q');
  git(path.join(root, 'repo'), 'add', '.');
  git(path.join(root, 'repo'), 'commit', '-qm', 'init');
  git(path.join(root, 'repo'), 'worktree', 'add', '-q', '-b', 'synapse/one', path.join(root, 'repo', '.synapse', 'worktrees', 'one'));
  git(path.join(root, 'repo'), 'worktree', 'add', '-q', '-b', 'other', path.join(root, 'elsewhere'));
});

afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

describe('the project is the git repository (its common directory)', () => {
  it('puts the store of a submodule in its own working tree (core.worktree), for its main checkout and its worktrees', () => {
    const sub = path.join(root, 'subsrc');
    fs.mkdirSync(sub);
    fs.writeFileSync(path.join(sub, 's'), 's\n');
    git(sub, 'init', '-q');
    git(sub, 'add', '.');
    git(sub, 'commit', '-qm', 'sub');
    const repo = path.join(root, 'repo');
    git(repo, '-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', sub, 'mod');
    const mod = path.join(repo, 'mod');
    git(mod, 'worktree', 'add', '-q', '-b', 'm', path.join(root, 'mod-wt'));
    expect(projectRoot(mod)).toBe(mod);
    expect(projectRoot(path.join(root, 'mod-wt'))).toBe(mod);
    expect(sameProject(mod, repo)).toBe(false);
  });

  it('finds the same common directory as `git rev-parse --git-common-dir`, in the main checkout, a subdirectory and linked worktrees', () => {
    const dirs = [
      path.join(root, 'repo'),
      path.join(root, 'repo', 'src', 'deep'),
      path.join(root, 'repo', '.synapse', 'worktrees', 'one', 'src'),
      path.join(root, 'elsewhere'),
    ];
    for (const dir of dirs) {
      const expected = fs.realpathSync(path.resolve(dir, git(dir, 'rev-parse', '--git-common-dir')));
      expect(gitCheckout(dir)?.commonDir).toBe(expected);
      expect(projectKey(dir)).toBe(expected);
    }
    expect(gitCheckout(path.join(root, 'elsewhere'))).toMatchObject({ top: path.join(root, 'elsewhere'), linked: true });
    expect(gitCheckout(path.join(root, 'repo', 'src'))).toMatchObject({ top: path.join(root, 'repo'), linked: false });
  });

  it('makes the main checkout and every worktree one project, with its store in the main checkout', () => {
    const wt = path.join(root, 'repo', '.synapse', 'worktrees', 'one');
    expect(sameProject(path.join(root, 'repo'), wt)).toBe(true);
    expect(sameProject(path.join(root, 'elsewhere'), path.join(root, 'repo', 'src'))).toBe(true);
    for (const dir of [wt, path.join(root, 'elsewhere', 'src'), path.join(root, 'repo', 'src', 'deep')]) {
      expect(projectRoot(dir)).toBe(path.join(root, 'repo'));
      expect(boardDbPath(dir)).toBe(path.join(root, 'repo', '.synapse', 'task_board.db'));
      expect(memoryDbPath(dir)).toBe(path.join(root, 'repo', '.synapse', 'memory.db'));
      expect(fileSafetyDbPath(dir, {})).toBe(path.join(root, 'repo', '.synapse', 'file_safety.db'));
    }
    // Sends compare working directories: worktrees are different ones.
    expect(sameWorkingDir(path.join(root, 'repo'), wt)).toBe(false);
  });

  it('names a file of a worktree by its place in the main checkout, so one lock path covers every worktree', () => {
    const main = path.join(root, 'repo', 'src', 'a.ts');
    expect(normalizeFilePath('src/a.ts', path.join(root, 'repo', '.synapse', 'worktrees', 'one'))).toBe(main);
    expect(normalizeFilePath('a.ts', path.join(root, 'elsewhere', 'src'))).toBe(main);
    expect(normalizeFilePath('src/new-file.ts', path.join(root, 'elsewhere'))).toBe(path.join(root, 'repo', 'src', 'new-file.ts'));
    expect(pathInMainCheckout(main)).toBe(main);
  });

  it('keeps directories outside git as their own projects', () => {
    const plain = path.join(root, 'plain');
    fs.mkdirSync(path.join(plain, 'sub'), { recursive: true });
    expect(gitCheckout(plain)).toBeNull();
    expect(projectKey(plain)).toBe(plain);
    expect(projectRoot(path.join(plain, 'sub'))).toBe(path.join(plain, 'sub'));
    expect(sameProject(plain, path.join(plain, 'sub'))).toBe(false);
    expect(normalizeFilePath('x.ts', plain)).toBe(path.join(plain, 'x.ts'));
  });

  it('shares one store among the worktrees of a repository whose git directory lives elsewhere (--separate-git-dir)', () => {
    const work = path.join(root, 'sep');
    fs.mkdirSync(work);
    git(work, 'init', '-q', `--separate-git-dir=${path.join(root, 'sep.git')}`);
    fs.writeFileSync(path.join(work, 'f'), 'f\n');
    git(work, 'add', '.');
    git(work, 'commit', '-qm', 'init');
    git(work, 'worktree', 'add', '-q', '-b', 'w', path.join(root, 'sep-wt'));
    expect(projectKey(path.join(root, 'sep-wt'))).toBe(projectKey(work));
    // git itself cannot name the main checkout from a linked worktree here: the git directory is the shared place.
    expect(projectRoot(work)).toBe(path.join(root, 'sep.git'));
    expect(projectRoot(path.join(root, 'sep-wt'))).toBe(path.join(root, 'sep.git'));
  });
});
