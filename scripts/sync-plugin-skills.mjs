#!/usr/bin/env node
// The Claude Code plugin's skills (plugins/synapse-a2a/skills/) are generated from the skill
// sources (skills/): one source of truth. Run after editing a skill:
//
//   node scripts/sync-plugin-skills.mjs           rewrite the plugin's copies
//   node scripts/sync-plugin-skills.mjs --check   exit 1 and list the differences (the drift test)
//   --root <dir>                                  a different repository root (tests)
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The skills the plugin ships, in the order its README names them. */
export const PLUGIN_SKILLS = ['synapse-a2a', 'synapse-manager', 'check-ci', 'fix-ci', 'fix-conflict', 'fix-review'];

/** Every file under `dir`, relative, sorted; with its bytes and whether it is executable. */
function tree(dir) {
  const out = new Map();
  const walk = (rel) => {
    for (const entry of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const sub = path.join(rel, entry.name);
      if (entry.isDirectory()) walk(sub);
      else if (entry.isFile()) {
        const file = path.join(dir, sub);
        out.set(sub, { bytes: fs.readFileSync(file), exec: (fs.statSync(file).mode & 0o111) !== 0 });
      }
    }
  };
  if (fs.existsSync(dir)) walk('');
  return out;
}

/** What differs between the sources and the plugin's copies, one line each; empty when in sync. */
export function drift(root) {
  const problems = [];
  const pluginSkills = path.join(root, 'plugins', 'synapse-a2a', 'skills');
  const present = fs.existsSync(pluginSkills) ? fs.readdirSync(pluginSkills) : [];
  for (const extra of present.filter((name) => !PLUGIN_SKILLS.includes(name))) problems.push(`plugins/synapse-a2a/skills/${extra}: not a plugin skill`);
  for (const name of PLUGIN_SKILLS) {
    const source = tree(path.join(root, 'skills', name));
    const copy = tree(path.join(pluginSkills, name));
    if (source.size === 0) problems.push(`skills/${name}: missing source`);
    for (const [rel, file] of source) {
      const other = copy.get(rel);
      if (!other) problems.push(`plugins/synapse-a2a/skills/${name}/${rel}: missing`);
      else if (!other.bytes.equals(file.bytes)) problems.push(`plugins/synapse-a2a/skills/${name}/${rel}: differs from skills/${name}/${rel}`);
      else if (other.exec !== file.exec) problems.push(`plugins/synapse-a2a/skills/${name}/${rel}: executable bit differs`);
    }
    for (const rel of copy.keys()) if (!source.has(rel)) problems.push(`plugins/synapse-a2a/skills/${name}/${rel}: not in skills/${name}`);
  }
  return problems;
}

/** Rewrites the plugin's skills from the sources. */
export function sync(root) {
  const pluginSkills = path.join(root, 'plugins', 'synapse-a2a', 'skills');
  fs.rmSync(pluginSkills, { recursive: true, force: true });
  for (const name of PLUGIN_SKILLS) fs.cpSync(path.join(root, 'skills', name), path.join(pluginSkills, name), { recursive: true });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const args = process.argv.slice(2);
  const at = args.indexOf('--root');
  const root = at >= 0 ? path.resolve(args[at + 1] ?? '.') : path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  if (args.includes('--check')) {
    const problems = drift(root);
    if (problems.length) {
      process.stderr.write(`plugin skills drifted from skills/ (run: node scripts/sync-plugin-skills.mjs):\n${problems.map((p) => `  ${p}`).join('\n')}\n`);
      process.exit(1);
    }
    process.stdout.write('plugin skills are in sync with skills/\n');
  } else {
    sync(root);
    process.stdout.write(`wrote plugins/synapse-a2a/skills/ (${PLUGIN_SKILLS.join(', ')}) from skills/\n`);
  }
}
