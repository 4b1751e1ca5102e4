import type * as ChildProcess from 'node:child_process';
import { requireCjs } from '../require-cjs.js';

/**
 * node:child_process is loaded by the call, not with this module: the bundle puts this module in
 * agent-start.js (scripts/bundle.mjs), which `synapse <profile>` loads before the CLI is spawned.
 */
const childProcess = () => requireCjs('node:child_process') as typeof ChildProcess;

/**
 * First line of `<bin> --version`, or null when it fails or takes too long. The updater is off:
 * Claude Code would otherwise check npm (and may install itself) on a plain `--version`.
 */
export function cliVersion(bin: string, timeoutMs = 8000): Promise<string | null> {
  return new Promise((resolve) => {
    childProcess().execFile(bin, ['--version'], { timeout: timeoutMs, env: { ...process.env, DISABLE_AUTOUPDATER: '1' } }, (err, stdout) => {
      resolve(err ? null : (stdout.trim().split('\n')[0] ?? '').slice(0, 80) || null);
    });
  });
}
