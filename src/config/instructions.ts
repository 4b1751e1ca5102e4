import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SynapseError } from '../errors.js';

/** The templates shipped with the package (`<package>/.synapse/`). */
const PACKAGE_TEMPLATE_DIR = fileURLToPath(new URL('../../.synapse/', import.meta.url));

/**
 * The start-up instruction: `<project>/.synapse/default.md` when the project has one, else the
 * shipped template; `{{agent_id}}` and `{{port}}` are filled in. Newlines become spaces so the
 * CLI receives it as one message.
 */
export function renderStartupInstruction(workingDir: string, vars: { agent_id: string; port: number }): string {
  const candidates = [path.join(workingDir, '.synapse', 'default.md'), path.join(PACKAGE_TEMPLATE_DIR, 'default.md')];
  let template = '';
  for (const file of candidates) {
    try {
      template = fs.readFileSync(file, 'utf8');
      break;
    } catch (err) {
      // Absent: the next candidate. Present but unreadable: say so rather than use another one.
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
        throw new SynapseError('invalid_input', `cannot read the start-up instruction ${file}: ${(err as Error).message}`, { file });
    }
  }
  return template
    .replace(/\{\{\s*agent_id\s*\}\}/g, vars.agent_id)
    .replace(/\{\{\s*port\s*\}\}/g, String(vars.port))
    .replace(/\s*\n\s*/g, ' ')
    .trim();
}
