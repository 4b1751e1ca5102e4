/**
 * The one logger interface of the code. An agent process makes a pino logger (runtime/agent-log.ts)
 * and hands it, or a child of it, to every component; pino's Logger satisfies this interface, and
 * so does `silentLogger` for code that runs without an agent (tests, short-lived commands).
 */
export interface Logger {
  info(msg: string): void;
  warn(msg: string): void;
  error(msg: string): void;
  debug(msg: string): void;
}

export const silentLogger: Logger = {
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  debug: () => undefined,
};
