import { requireCjs } from '../require-cjs.js';

/**
 * What the rest of the agent loads, Fastify last: it is the longest block of the event loop, so in
 * the foreground start-agent.ts loads the others while the CLI starts and Fastify only once the
 * CLI's first output is on the person's terminal (start-agent.ts loads them one at a time, after
 * the CLI is spawned). Each is named once as a literal: the build's bundle
 * (scripts/bundle.mjs) resolves them to its own copies, and since a bundled package is a static
 * import of its chunk, they live in this module, which start-agent.ts imports only once the CLI
 * runs: the CLI is not kept waiting while ~0.5 MB of them is read.
 */
export const HEAVY_MODULES: Array<() => unknown> = [
  () => requireCjs('@xterm/headless') as unknown,
  () => requireCjs('pino') as unknown,
  () => requireCjs('better-sqlite3') as unknown,
  () => requireCjs('fastify') as unknown,
];
