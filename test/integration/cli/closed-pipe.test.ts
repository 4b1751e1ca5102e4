import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, tempHome } from '../../support/synapse.js';

const home = tempHome();
afterAll(() => home.cleanup());

/** Runs `synapse …` with stdout a pipe whose reader is gone before it writes, as `| head -1` may be. */
function runIntoClosedPipe(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: home.env, cwd: home.home, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.destroy();
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

describe('output into a pipe that closes early (synapse … | head)', () => {
  it('stops quietly: exit 0, no EPIPE stack trace', async () => {
    const r = await runIntoClosedPipe(['skills', 'list', '--json']);
    expect(r.stderr).not.toMatch(/EPIPE|Unhandled 'error' event/);
    expect(r.code).toBe(0);
  });
});
