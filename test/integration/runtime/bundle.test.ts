import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../support/synapse.js';

/**
 * The build's bundle (scripts/bundle.mjs) as a process holds it. V8 keeps every module's source in
 * memory, as a one-byte string only while all of it is ASCII: one `é` doubles a chunk's cost.
 */
describe('the bundle', () => {
  const dir = path.join(ROOT, 'dist', 'bundle');
  const chunks = fs.readdirSync(dir).filter((f) => f.endsWith('.js'));

  it('is ASCII in every chunk, so each source is held at one byte a character', () => {
    expect(chunks).toContain('vendor-xterm.js'); // xterm's tables hold accented characters
    const nonAscii = chunks.filter((f) => /[^\x00-\x7f]/.test(fs.readFileSync(path.join(dir, f), 'utf8')));
    expect(nonAscii).toEqual([]);
  });

  it("requires Node's HTTP/2 and HTTPS in Fastify's chunk only on first use", () => {
    const fastify = fs.readFileSync(path.join(dir, 'vendor-fastify.js'), 'utf8');
    for (const builtin of ['node:http2', 'node:https']) {
      const required = [...fastify.matchAll(new RegExp(`\\w+\\(\`${builtin}\`\\)`, 'g'))].map((m) => fastify.slice(Math.max(0, m.index - 40), m.index));
      expect(required.length, builtin).toBeGreaterThan(0);
      // Each require of it is in the get or has trap of a Proxy: none runs when the chunk loads.
      for (const before of required) expect(before, builtin).toMatch(/new Proxy\(\{\},\{get:\([^)]*\)=>$|has:\([^)]*\)=>\w+ in $/);
    }
  });

  it("runs Fastify's semver (its plugins' version checks) only on first use", () => {
    const fastify = fs.readFileSync(path.join(dir, 'vendor-fastify.js'), 'utf8');
    // Bundled in, semver is a function that runs its module once; the Proxy's traps call it.
    const traps = [...fastify.matchAll(/new Proxy\(\{\},\{get:\(\w+,\w+\)=>(\w+)\(\)\[\w+\],has:\(\w+,\w+\)=>\w+ in \1\(\)\}\)/g)];
    const semver = traps
      .map((m) => m[1])
      .filter((init) => {
        const at = fastify.search(new RegExp(`[,{;]${init}=`));
        return at >= 0 && fastify.slice(at, at + 3000).includes('SEMVER_SPEC_VERSION:');
      });
    expect(semver).toHaveLength(1);
    // Called nowhere else: in the traps only.
    expect(fastify.match(new RegExp(`\\b${semver[0]}\\(\\)`, 'g'))).toHaveLength(2);
  });
});
