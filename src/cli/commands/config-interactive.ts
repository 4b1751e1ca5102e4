import type { CommandIo } from '../io.js';
import { configShow } from './config-cli.js';

/** The interactive editor (filled in below); for now the merged view. */
export async function configInteractive(io: CommandIo): Promise<void> {
  configShow({}, io);
}
