import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readSkillDir } from '../../../src/skills/front-matter.js';

/**
 * The shipped skills, the Claude Code plugin and its marketplace manifest: the plugin's skills
 * are generated from skills/ (scripts/sync-plugin-skills.mjs) and must not drift; every skill a
 * default skill set names is shipped; every SKILL.md has valid front matter.
 */

const ROOT = path.resolve(import.meta.dirname, '../../..');
const SCRIPT = path.join(ROOT, 'scripts', 'sync-plugin-skills.mjs');
const temps: string[] = [];
afterEach(() => {
  for (const t of temps.splice(0)) fs.rmSync(t, { recursive: true, force: true });
});

const sync = (...args: string[]) => spawnSync(process.execPath, [SCRIPT, ...args], { encoding: 'utf8' });
const readJson = (file: string) => JSON.parse(fs.readFileSync(path.join(ROOT, file), 'utf8')) as Record<string, any>;

describe('the plugin skills are generated from skills/', () => {
  it('the checked-in plugin is in sync with skills/', () => {
    const r = sync('--check');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it('--check names an edited, a missing and an extra file; a sync puts them right', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'synapse-plugin-'));
    temps.push(root);
    fs.cpSync(path.join(ROOT, 'skills'), path.join(root, 'skills'), { recursive: true });
    fs.cpSync(path.join(ROOT, 'plugins'), path.join(root, 'plugins'), { recursive: true });
    fs.appendFileSync(path.join(root, 'skills', 'synapse-a2a', 'SKILL.md'), '\nA new line.\n');
    fs.rmSync(path.join(root, 'plugins', 'synapse-a2a', 'skills', 'synapse-manager', 'references', 'checklists.md'));
    fs.writeFileSync(path.join(root, 'plugins', 'synapse-a2a', 'skills', 'synapse-a2a', 'stray.md'), 'x');
    const drifted = sync('--check', '--root', root);
    expect(drifted.status).toBe(1);
    expect(drifted.stderr).toContain('plugins/synapse-a2a/skills/synapse-a2a/SKILL.md: differs from skills/synapse-a2a/SKILL.md');
    expect(drifted.stderr).toContain('plugins/synapse-a2a/skills/synapse-manager/references/checklists.md: missing');
    expect(drifted.stderr).toContain('plugins/synapse-a2a/skills/synapse-a2a/stray.md: not in skills/synapse-a2a');
    expect(sync('--root', root).status).toBe(0);
    const again = sync('--check', '--root', root);
    expect(again.status).toBe(0);
    expect(fs.readFileSync(path.join(root, 'plugins', 'synapse-a2a', 'skills', 'synapse-a2a', 'SKILL.md'), 'utf8')).toContain('A new line.');
  });
});

describe('the plugin and its marketplace', () => {
  it('the marketplace at the repository root lists the plugin folder, whose manifest has the same name', () => {
    const market = readJson('.claude-plugin/marketplace.json');
    expect(market.name).toBe('synapse-a2a');
    expect(market.owner?.name).toBeTruthy();
    const entry = (market.plugins as Array<{ name: string; source: string }>).find((p) => p.name === 'synapse-a2a');
    expect(entry?.source).toBe('./plugins/synapse-a2a');
    const plugin = readJson(path.join(entry!.source, '.claude-plugin', 'plugin.json'));
    expect(plugin).toMatchObject({ name: 'synapse-a2a', version: expect.stringMatching(/^\d+\.\d+\.\d+$/) });
    expect(fs.existsSync(path.join(ROOT, 'plugins', 'synapse-a2a', 'README.md'))).toBe(true);
  });

  it('ships synapse-a2a with its references and synapse-manager with executable scripts', () => {
    const a2a = path.join(ROOT, 'plugins', 'synapse-a2a', 'skills', 'synapse-a2a');
    expect(fs.readdirSync(path.join(a2a, 'references')).sort()).toEqual(
      ['api', 'collaboration', 'commands', 'examples', 'features', 'file-safety', 'messaging', 'spawning'].map((n) => `${n}.md`),
    );
    const manager = path.join(ROOT, 'plugins', 'synapse-a2a', 'skills', 'synapse-manager');
    expect(fs.existsSync(path.join(manager, 'SKILL.md'))).toBe(true);
    expect(fs.readdirSync(path.join(manager, 'references')).length).toBeGreaterThan(0);
    for (const script of ['wait_ready.sh', 'check_team_status.sh']) {
      const mode = fs.statSync(path.join(manager, 'scripts', script)).mode;
      expect(mode & 0o100, `${script} is executable`).toBe(0o100);
      expect(spawnSync('bash', ['-n', path.join(manager, 'scripts', script)]).status, `${script} parses`).toBe(0);
    }
  });

  it("ships the original's CI skills: check-ci (with its optional hook script), fix-ci, fix-conflict, fix-review", () => {
    const skills = path.join(ROOT, 'plugins', 'synapse-a2a', 'skills');
    for (const name of ['check-ci', 'fix-ci', 'fix-conflict', 'fix-review']) {
      const fm = readSkillDir(path.join(skills, name));
      expect(fm.name).toBe(name);
    }
    expect(fs.readFileSync(path.join(skills, 'check-ci', 'SKILL.md'), 'utf8')).toContain('--fix');
    expect(fs.readFileSync(path.join(skills, 'fix-review', 'SKILL.md'), 'utf8')).toContain('--all');
    expect(fs.readdirSync(path.join(skills, 'check-ci', 'scripts'))).toEqual(['ci-watch.mjs']);
    // Optional: the plugin registers no hook of its own (hooks/hooks.json); the user opts in.
    expect(fs.existsSync(path.join(ROOT, 'plugins', 'synapse-a2a', 'hooks', 'hooks.json'))).toBe(false);
  });
});

describe('the shipped skills and the default skill sets', () => {
  const shipped = fs.readdirSync(path.join(ROOT, 'skills')).sort();

  it('every shipped skill has front matter with its folder name and a description', () => {
    expect(shipped.length).toBeGreaterThan(2);
    for (const name of shipped) {
      const fm = readSkillDir(path.join(ROOT, 'skills', name));
      expect(fm.name).toBe(name);
      expect(fm.description.length).toBeGreaterThan(40);
    }
  });

  it('the default sets are architect, developer, reviewer, frontend, manager, documentation, and every skill they name is shipped', () => {
    const sets = readJson('templates/synapse/skill_sets.json') as Record<string, { skills: string[] }>;
    expect(Object.keys(sets).sort()).toEqual(['architect', 'developer', 'documentation', 'frontend', 'manager', 'reviewer']);
    const named = [...new Set(Object.values(sets).flatMap((s) => s.skills))].sort();
    expect(named.filter((n) => !shipped.includes(n))).toEqual([]);
    for (const s of Object.values(sets)) expect(s.skills).toContain('synapse-a2a');
  });
});
