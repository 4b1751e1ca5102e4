/**
 * The one logger interface of the code. An agent process makes a pino logger (runtime/agent-log.ts)
 * and hands it to every component; pino's Logger satisfies this interface.
 */
export interface Logger {
  info(msg: string): void;
  warn(msg: string): void;
  error(msg: string): void;
  debug(msg: string): void;
}
