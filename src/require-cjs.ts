import { createRequire } from 'node:module';
import type * as Crypto from 'node:crypto';

/**
 * Loads a CommonJS package with `require`, not `import`. Node 20's ESM loader reads a CJS file's
 * source a second time (cjs-module-lexer) to find its named exports, even when `require` already
 * loaded it: for the packages an agent loads at start-up (xterm's one-file bundle, Fastify,
 * pino, commander) that costs tens of milliseconds before the card answers. The type comes from
 * `typeof import('pkg')`, so the compiler still checks every use.
 */
export const requireCjs = createRequire(import.meta.url);

/**
 * node:crypto, loaded at its first use rather than with the module that uses it: an agent's start
 * reaches several such modules before it spawns its CLI, and loading node:crypto there cost ~6 ms
 * of that wait (guides/agent-runtime.md, Start-up).
 */
export const nodeCrypto = (): typeof Crypto => requireCjs('node:crypto') as typeof Crypto;
