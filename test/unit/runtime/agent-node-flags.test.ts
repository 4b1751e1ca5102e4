import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEFERRED_CA_VAR } from '../../../src/extra-ca-certs.js';
import { AGENT_NODE_FLAGS, synapseBin } from '../../../src/runtime/launch.js';

describe("an agent process's V8 flags", () => {
  const shebang = fs.readFileSync(synapseBin, 'utf8').split('\n')[0]!;

  it('are the same for a background agent (synapse start) and the bin a foreground agent runs through', () => {
    expect(shebang).toBe(`#!/usr/bin/env -S NODE_EXTRA_CA_CERTS= ${DEFERRED_CA_VAR}=\${NODE_EXTRA_CA_CERTS} node ${AGENT_NODE_FLAGS.join(' ')}`);
    // This node takes them (a flag it does not know stops it before synapse runs).
    const run = spawnSync(process.execPath, [...AGENT_NODE_FLAGS, '-e', 'process.stdout.write("ok")'], { encoding: 'utf8' });
    expect({ status: run.status, out: run.stdout, err: run.stderr }).toEqual({ status: 0, out: 'ok', err: '' });
  });

  it('fit the 127 bytes of a shebang that Linux before 5.1 reads (more is cut off, and node gets a broken flag)', () => {
    expect(Buffer.byteLength(`${shebang}\n`)).toBeLessThanOrEqual(128);
  });
});
