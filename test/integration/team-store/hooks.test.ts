import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentStatus } from '../../../src/cli/commands/lifecycle.js';
import { runJson } from '../../support/cli-io.js';
import { freePort, ROOT } from '../../support/synapse.js';
import { registerAgent, synapse, useTempProject } from './harness.js';

/**
 * `synapse hooks install claude` and the hook it installs: the command written into
 * .claude/settings.json is run as Claude Code runs it (a shell, the PreToolUse JSON on stdin)
 * and blocks (exit 2, reason on stderr) a write to a path another agent holds.
 */

const ctx = useTempProject();

const settingsFile = () => path.join(ctx.project.dir, '.claude', 'settings.json');

/** Runs a hook command the way Claude Code does: `sh -c`, tool call JSON on stdin, in the project. */
function runHook(command: string, agent: string, toolInput: Record<string, unknown>, env: NodeJS.ProcessEnv = {}): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', command], {
      cwd: ctx.project.dir,
      env: { ...ctx.project.env, SYNAPSE_AGENT_ID: agent, ...env },
      stdio: ['pipe', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stderr }));
    child.stdin.end(JSON.stringify({ session_id: 's', hook_event_name: 'PreToolUse', cwd: ctx.project.dir, tool_name: 'Write', tool_input: toolInput }));
  });
}

describe('synapse hooks', () => {
  it('install merges a PreToolUse hook into .claude/settings.json, keeping what was there, once', async () => {
    fs.mkdirSync(path.dirname(settingsFile()), { recursive: true });
    const existing = { model: 'opus', hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'echo mine' }] }], Stop: [] } };
    fs.writeFileSync(settingsFile(), JSON.stringify(existing));
    const first = await synapse(ctx.project, ['hooks', 'install', 'claude', '--json']);
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ installed: true, file: settingsFile() });
    const again = await synapse(ctx.project, ['hooks', 'install', 'claude']);
    expect(again.stdout).toContain('already installed');
    const written = JSON.parse(fs.readFileSync(settingsFile(), 'utf8'));
    expect(written.model).toBe('opus');
    expect(written.hooks.Stop).toEqual([]);
    expect(written.hooks.PreToolUse).toHaveLength(2);
    expect(written.hooks.PreToolUse[0]).toEqual(existing.hooks.PreToolUse[0]);
    expect(written.hooks.PreToolUse[1]).toMatchObject({
      matcher: 'Edit|Write|MultiEdit',
      hooks: [{ type: 'command', command: expect.stringContaining('hooks pre-write') }],
    });
  });

  it('the installed hook blocks a write to a path another agent holds (exit 2, reason on stderr) and allows the rest', async () => {
    await synapse(ctx.project, ['hooks', 'install', 'claude']);
    const command = JSON.parse(fs.readFileSync(settingsFile(), 'utf8')).hooks.PreToolUse.at(-1).hooks[0].command as string;
    expect((await synapse(ctx.project, ['file-safety', 'lock', 'src/auth/**', 'alice', '--pid', '0'])).code).toBe(0);
    expect((await synapse(ctx.project, ['file-safety', 'lock', 'README.md', 'alice', '--pid', '0'])).code).toBe(0);

    const blocked = await runHook(command, 'bob', { file_path: path.join(ctx.project.dir, 'src/auth/login.ts'), content: 'x' });
    expect(blocked.code).toBe(2);
    expect(blocked.stderr).toMatch(/Blocked by Synapse file safety: .*src\/auth\/\*\* is locked by alice/);
    // Node starts with NODE_EXTRA_CA_CERTS held aside, as the bin's shebang does; the hook still works with it set.
    expect(command).toMatch(/^SYNAPSE_EXTRA_CA="\$NODE_EXTRA_CA_CERTS" NODE_EXTRA_CA_CERTS= "/);
    const withCa = await runHook(
      command,
      'bob',
      { file_path: 'src/auth/x.ts' },
      { NODE_EXTRA_CA_CERTS: path.join(ROOT, 'test', 'fixtures', 'tls', 'cert.pem') },
    );
    expect([withCa.code, withCa.stderr]).toEqual([2, expect.stringContaining('is locked by alice')]);
    expect((await runHook(command, 'bob', { file_path: 'README.md', content: 'x' })).code).toBe(2);
    expect((await runHook(command, 'alice', { file_path: path.join(ctx.project.dir, 'src/auth/login.ts') })).code).toBe(0);
    expect((await runHook(command, 'bob', { file_path: path.join(ctx.project.dir, 'src/other.ts') })).code).toBe(0);
    // Not a Synapse agent: the hook stays out of the way.
    expect((await runHook(command, '', { file_path: 'README.md' })).code).toBe(0);
  });

  it('refuses a profile with no known pre-write hook, and a settings file that is not JSON', async () => {
    const codex = await synapse(ctx.project, ['hooks', 'install', 'codex']);
    expect(codex.code).toBe(1);
    expect(codex.stderr).toContain('no pre-write hook is known for codex');
    fs.mkdirSync(path.dirname(settingsFile()), { recursive: true });
    fs.writeFileSync(settingsFile(), '{ not json');
    const broken = await synapse(ctx.project, ['hooks', 'install', 'claude']);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain(`cannot read ${settingsFile()}`);
    expect(fs.readFileSync(settingsFile(), 'utf8')).toBe('{ not json');
  });

  it('status says whether an agent’s locks are enforced or advisory', async () => {
    const port = await freePort();
    registerAgent(ctx.project, { agent_id: `synapse-claude-${port}`, name: 'cl', pid: process.pid, port, working_dir: ctx.project.dir });
    const io = { env: ctx.project.env, cwd: ctx.project.dir };
    const before = await runJson<{ locks_enforced: boolean }>((c) => agentStatus('cl', { json: true }, c), io);
    expect(before.locks_enforced).toBe(false);
    await synapse(ctx.project, ['hooks', 'install', 'claude']);
    const after = await runJson<{ locks_enforced: boolean }>((c) => agentStatus('cl', { json: true }, c), io);
    expect(after.locks_enforced).toBe(true);
  });
});
