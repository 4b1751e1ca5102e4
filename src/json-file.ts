import fs from 'node:fs';
import { SynapseError } from './errors.js';

/**
 * Reads a JSON file, telling "absent" from "unreadable": a missing file is `null`; a file that
 * exists but cannot be read or is not JSON throws `SynapseError('invalid_input')` naming the file
 * and saying what to do, so a corrupt file never passes for a missing one.
 */
export function readJsonFile(file: string): unknown {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new SynapseError('invalid_input', `cannot read ${file}: ${(err as Error).message}`, { file });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new SynapseError('invalid_input', `${file} is corrupt (not JSON: ${(err as Error).message}); fix it or remove it`, { file });
  }
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
