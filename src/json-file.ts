import fs from 'node:fs';
import { SynapseError } from './errors.js';

/**
 * Reads a JSON file, telling "absent" from "unreadable": a missing file is `null`; a file that
 * exists but cannot be read or is not JSON throws `SynapseError('corrupt_file')` with the file
 * and the reason in its details (`unreadable: …`, `not JSON: …`) and a message that names the
 * file, so a corrupt file never passes for a missing one. `what` names the file for people
 * ("the reply stack"); the path follows it.
 */
export function readJsonFile(file: string, what = 'file'): unknown {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    const reason = `unreadable: ${(err as Error).message}`;
    throw new SynapseError('corrupt_file', `cannot read ${what} ${file}: ${(err as Error).message}`, { file, reason });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    const why = printable((err as Error).message);
    throw new SynapseError('corrupt_file', `${what} ${file} is not JSON (${why}); fix it or remove it`, { file, reason: `not JSON: ${why}` });
  }
}

/**
 * A parse error quotes the file's text, and the text may hold escape sequences: shown as `\x1b`,
 * never written raw to the user's terminal.
 */
function printable(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/** The names in a directory; a missing directory has none (any other failure throws). */
export function readDirNames(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}
