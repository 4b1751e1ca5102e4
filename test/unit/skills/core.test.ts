import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isGitUrl } from '../../../src/skills/add.js';
import { CORE_SKILL, deployCoreSkill } from '../../../src/skills/core.js';

/** The core skill every agent gets at start: where it goes per CLI, and whose copies it refreshes. */

let home: string;
let env: NodeJS.ProcessEnv;
beforeEach(() => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'synapse-core-'));
  env = { HOME: home, SYNAPSE_HOME: path.join(home, '.synapse') };
});
afterEach(() => fs.rmSync(home, { recursive: true, force: true }));

const skillMd = (dir: string) => fs.readFileSync(path.join(dir, 'SKILL.md'), 'utf8');

describe('deployCoreSkill', () => {
  it('puts synapse-a2a where Claude Code reads it, and where the other CLIs read it', () => {
    const claude = deployCoreSkill('claude', env, home);
    expect(claude).toEqual({ deployed: path.join(home, '.claude', 'skills', CORE_SKILL) });
    expect(skillMd(path.join(home, '.claude', 'skills', CORE_SKILL))).toMatch(/^---\nname: synapse-a2a\n/);
    expect(fs.readdirSync(path.join(home, '.claude', 'skills', CORE_SKILL, 'references'))).toContain('messaging.md');
    expect(deployCoreSkill('codex', env, home)).toEqual({ deployed: path.join(home, '.agents', 'skills', CORE_SKILL) });
    expect(deployCoreSkill('echo', env, home)).toEqual({ skipped: 'the echo agent reads no skills' });
  });

  it('leaves its own up-to-date copy alone, refreshes it from the central store, and never touches a copy a person put there', () => {
    deployCoreSkill('claude', env, home);
    expect(deployCoreSkill('claude', env, home)).toEqual({ skipped: expect.stringContaining('is up to date') });

    const central = path.join(home, '.synapse', 'skills', CORE_SKILL);
    fs.mkdirSync(central, { recursive: true });
    fs.writeFileSync(path.join(central, 'SKILL.md'), '---\nname: synapse-a2a\ndescription: our own edition\n---\n');
    expect(deployCoreSkill('claude', env, home)).toEqual({ deployed: path.join(home, '.claude', 'skills', CORE_SKILL) });
    expect(skillMd(path.join(home, '.claude', 'skills', CORE_SKILL))).toContain('our own edition');

    const own = path.join(home, '.agents', 'skills', CORE_SKILL);
    fs.mkdirSync(own, { recursive: true });
    fs.writeFileSync(path.join(own, 'SKILL.md'), 'mine');
    expect(deployCoreSkill('gemini', env, home)).toEqual({ skipped: expect.stringContaining('was not deployed by Synapse') });
    expect(skillMd(own)).toBe('mine');
  });

  it('never throws: an unwritable home is reported', () => {
    fs.writeFileSync(path.join(home, '.claude'), 'a file where a folder should be');
    expect(deployCoreSkill('claude', env, home)).toEqual({ skipped: expect.stringContaining('could not deploy synapse-a2a') });
  });
});

describe('isGitUrl', () => {
  it('tells git URLs from local paths', () => {
    for (const url of ['https://github.com/acme/skills.git', 'git@github.com:acme/skills.git', 'ssh://git@host/x', 'file:///tmp/repo'])
      expect(isGitUrl(url)).toBe(true);
    for (const local of ['./skills', '/tmp/skills', 'skills/code-review']) expect(isGitUrl(local)).toBe(false);
  });
});
