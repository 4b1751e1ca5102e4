import fs from 'node:fs';
import path from 'node:path';
import { copyTemplates, templateTarget } from '../../config/templates.js';
import { SynapseError } from '../../errors.js';
import { printJson, println, type CommandIo } from '../io.js';
import { parseScope } from './config-cli.js';

function scopeOf(raw: string | undefined): 'user' | 'project' {
  return (parseScope(raw, ['user', 'project']) as 'user' | 'project' | undefined) ?? 'project';
}

/** `synapse init [--scope user|project] [--force]`: copies the templates, never over an existing file without --force. */
export function initCommand(flags: { scope?: string; force?: boolean; json?: boolean }, io: CommandIo): void {
  const result = copyTemplates(templateTarget(scopeOf(flags.scope), io.cwd, io.env), flags.force === true);
  if (flags.json) return printJson(io, result);
  for (const name of result.written) println(io, `wrote ${path.join(result.dir, name)}`);
  for (const name of result.kept) println(io, `kept  ${path.join(result.dir, name)} (exists; --force overwrites it)`);
}

/**
 * `synapse reset [--scope user|project] [--yes]`: puts back every shipped template (settings.json
 * included) over the scope's files; for a project, also removes settings.local.json. Asks first
 * on a terminal; without one it needs --yes.
 */
export async function resetCommand(flags: { scope?: string; yes?: boolean; json?: boolean }, io: CommandIo): Promise<void> {
  const scope = scopeOf(flags.scope);
  const dir = templateTarget(scope, io.cwd, io.env);
  if (!flags.yes) {
    if (!io.isTerminal('stdin'))
      throw new SynapseError('usage', `synapse reset overwrites the settings and instruction files in ${dir}: pass --yes to confirm`);
    if (!(await io.confirm(`Reset the ${scope} settings and instruction files in ${dir} to the shipped templates?`))) {
      println(io, 'nothing changed');
      return;
    }
  }
  const result = copyTemplates(dir, true);
  const local = path.join(dir, 'settings.local.json');
  const removed = scope === 'project' && fs.existsSync(local) ? (fs.rmSync(local), [local]) : [];
  if (flags.json) return printJson(io, { ...result, removed });
  for (const name of result.written) println(io, `reset ${path.join(dir, name)}`);
  for (const file of removed) println(io, `removed ${file}`);
}
