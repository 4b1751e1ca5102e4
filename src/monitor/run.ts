import ansiEscapes from 'ansi-escapes';
import { render } from 'ink';
import { createElement } from 'react';
import type { ListColumn } from '../config/keys.js';
import type { Env } from '../config/paths.js';
import { MonitorSource, type RemoteFeed } from './source.js';
import { MonitorApp, type MonitorActions } from './view.js';

export interface MonitorOptions {
  env: Env;
  columns: readonly ListColumn[];
  actions: MonitorActions;
  stdin?: NodeJS.ReadStream;
  stdout?: NodeJS.WriteStream;
  /** The fallback read interval (10 s). */
  pollMs?: number;
  /** Other hosts' agents, with a PostgreSQL store (store/discovery.ts). */
  remote?: RemoteFeed;
}

/**
 * `synapse list` on a terminal: the live monitor, full screen (the terminal's alternate screen,
 * so quitting gives the shell back as it was) until q, Ctrl+C, SIGTERM or SIGHUP. Ink and React are
 * loaded only here: this module is imported by no other command.
 */
export async function runMonitor(opts: MonitorOptions): Promise<void> {
  const stdout = opts.stdout ?? process.stdout;
  const stdin = opts.stdin ?? process.stdin;
  const source = new MonitorSource({
    env: opts.env,
    ...(opts.pollMs !== undefined ? { pollMs: opts.pollMs } : {}),
    ...(opts.remote ? { remote: opts.remote } : {}),
  });
  stdout.write(ansiEscapes.enterAlternativeScreen + ansiEscapes.cursorTo(0, 0));
  const app = render(createElement(MonitorApp, { source, columns: opts.columns, actions: opts.actions, home: opts.env.HOME }), {
    stdout,
    stdin,
    exitOnCtrlC: false, // Ctrl+C is a key of the monitor's (keys.ts): it quits the same way as q
    patchConsole: false,
  });
  const quit = () => app.unmount();
  process.once('SIGTERM', quit);
  process.once('SIGHUP', quit);
  try {
    await app.waitUntilExit();
  } finally {
    process.off('SIGTERM', quit);
    process.off('SIGHUP', quit);
    source.stop();
    // Stop reading the terminal before the shell's screen comes back, so keys typed from then on
    // are the shell's: Ink only stops listening, and the stream would go on buffering (swallowing)
    // them until this process has exited. libuv never closes the stdio descriptor itself.
    if (stdin === process.stdin) stdin.destroy();
    stdout.write(ansiEscapes.exitAlternativeScreen);
  }
}
