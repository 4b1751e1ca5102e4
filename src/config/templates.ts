import fs from 'node:fs';
import path from 'node:path';
import { PACKAGE_TEMPLATE_DIR } from './instructions.js';
import { projectSynapseDir, synapseHome, type Env } from './paths.js';

/** Where `synapse init` writes: `~/.synapse` (user) or `<project>/.synapse` (project). */
export function templateTarget(scope: 'user' | 'project', cwd: string, env: Env): string {
  return scope === 'user' ? synapseHome(env) : projectSynapseDir(cwd);
}

/** The shipped template files (every file of `templates/synapse/`), sorted. */
function templateNames(): string[] {
  return fs
    .readdirSync(PACKAGE_TEMPLATE_DIR, { withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => e.name)
    .sort();
}

export interface CopyResult {
  dir: string;
  written: string[];
  /** Present already and kept (no `force`). */
  kept: string[];
}

/** Copies every template into `dir`; an existing file is kept unless `force`. */
export function copyTemplates(dir: string, force: boolean): CopyResult {
  fs.mkdirSync(dir, { recursive: true });
  const result: CopyResult = { dir, written: [], kept: [] };
  for (const name of templateNames()) {
    const to = path.join(dir, name);
    if (!force && fs.existsSync(to)) {
      result.kept.push(name);
      continue;
    }
    fs.copyFileSync(path.join(PACKAGE_TEMPLATE_DIR, name), to);
    result.written.push(name);
  }
  return result;
}
