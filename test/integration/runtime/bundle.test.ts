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

  it("requires Node's HTTP/2 in Fastify's chunk only on first use", () => {
    const fastify = fs.readFileSync(path.join(dir, 'vendor-fastify.js'), 'utf8');
    expect(fastify).toMatch(/new Proxy\(\{\},\{get:\([^)]*\)=>\w+\(`node:http2`\)/);
  });
});
