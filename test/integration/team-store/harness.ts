import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Project } from '../../support/project.js';

export { exited, registerAgent, tempProject, useTempProject, waitFor, type Project } from '../../support/project.js';

export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const BIN = path.join(ROOT, 'bin', 'synapse.js');

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the built CLI in the project and collects its output. */
export function synapse(project: Project, args: string[], options: { env?: NodeJS.ProcessEnv; input?: string } = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: project.dir, env: { ...project.env, ...options.env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}

/** Runs a command that must succeed and parses its JSON output. */
export async function json<T = any>(project: Project, args: string[], env?: NodeJS.ProcessEnv): Promise<T> {
  const r = await synapse(project, args, { env });
  if (r.code !== 0) throw new Error(`synapse ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}

/** `synapse <group> <sub> --help` exits 0 and shows an example of that subcommand. */
export async function helpShowsExamples(project: Project, group: string, sub: string): Promise<boolean> {
  const help = await synapse(project, [group, sub, '--help']);
  return help.code === 0 && help.stdout.includes('Examples:') && help.stdout.includes(`synapse ${group} ${sub}`);
}
