import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { projectKey, sameProject } from '../../../src/registry/project.js';

let root: string;

beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'synapse-project-')));
});

afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

describe('the same-project rule', () => {
  it('treats a directory and a symlink to it as one project', () => {
    const real = path.join(root, 'repo');
    fs.mkdirSync(real);
    fs.symlinkSync(real, path.join(root, 'link'));
    expect(sameProject(path.join(root, 'link'), real)).toBe(true);
    expect(sameProject(`${real}/`, path.join(root, 'link', '.'))).toBe(true);
    expect(projectKey(path.join(root, 'link'))).toBe(real);
  });

  it('keeps two different directories apart', () => {
    fs.mkdirSync(path.join(root, 'a'));
    fs.mkdirSync(path.join(root, 'b'));
    expect(sameProject(path.join(root, 'a'), path.join(root, 'b'))).toBe(false);
  });

  it('compares a directory that no longer exists by its absolute path', () => {
    expect(projectKey(path.join(root, 'gone', '..', 'gone'))).toBe(path.join(root, 'gone'));
    expect(sameProject(path.join(root, 'gone'), path.join(root, 'gone/'))).toBe(true);
  });
});
