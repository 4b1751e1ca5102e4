import { format } from 'node:util';
import type { Logger } from '../logger.js';

/**
 * In the foreground the terminal belongs to the wrapped CLI: a stray line on stdout would draw
 * over its TUI. Our own code logs through the agent's logger; @a2a-js/sdk writes its warnings
 * with `console.*` and takes no logger. So the foreground runner, which owns this process, sends
 * `console` to the agent's log for the life of the process. Only here: the runtime never touches
 * process-wide state.
 */
export function routeConsoleToLog(logger: Logger): void {
  const to =
    (write: (msg: string) => void) =>
    (...args: unknown[]) =>
      write(format(...args));
  console.log = to((m) => logger.info(m));
  console.info = to((m) => logger.info(m));
  console.debug = to((m) => logger.debug(m));
  console.warn = to((m) => logger.warn(m));
  console.error = to((m) => logger.error(m));
}
