import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The templates shipped with the package (`<package>/.synapse/`). */
export const PACKAGE_TEMPLATE_DIR = fileURLToPath(new URL('../../.synapse/', import.meta.url));

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
    } catch {
      // next candidate
    }
  }
  return template
    .replace(/\{\{\s*agent_id\s*\}\}/g, vars.agent_id)
    .replace(/\{\{\s*port\s*\}\}/g, String(vars.port))
    .replace(/\s*\n\s*/g, ' ')
    .trim();
}
