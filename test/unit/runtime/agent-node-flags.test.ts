import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AGENT_NODE_FLAGS, synapseBin } from '../../../src/runtime/launch.js';

describe("an agent process's V8 flags", () => {
  it('are the same for a background agent (synapse start) and the bin a foreground agent runs through', () => {
    const shebang = fs.readFileSync(synapseBin, 'utf8').split('\n')[0];
    expect(shebang).toBe(`#!/usr/bin/env -S node ${AGENT_NODE_FLAGS.join(' ')}`);
    // This node takes them (a flag it does not know stops it before synapse runs).
    const run = spawnSync(process.execPath, [...AGENT_NODE_FLAGS, '-e', 'process.stdout.write("ok")'], { encoding: 'utf8' });
    expect({ status: run.status, out: run.stdout, err: run.stderr }).toEqual({ status: 0, out: 'ok', err: '' });
  });
});
