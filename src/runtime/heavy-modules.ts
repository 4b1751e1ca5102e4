import { requireCjs } from '../require-cjs.js';

/**
 * What the rest of the agent loads, Fastify last (the longest block of the event loop). In the
 * foreground start-agent.ts loads none of them, nor this module, before the CLI's first output is
 * on the person's terminal; then one at a time, a turn of the loop between them. Each is named once as a literal: the build's bundle
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
