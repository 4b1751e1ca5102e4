import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mcpInstall } from '../../../src/cli/commands/mcp.js';
import type { CommandIo } from '../../../src/cli/io.js';
import { hasSynapseMcpEntry } from '../../../src/config/mcp-entry.js';
import { runCommand } from '../../support/cli-io.js';
import { runCli, tempHome } from '../../support/synapse.js';

/**
 * `synapse mcp install <profile>` writes the Synapse entry where each CLI reads its MCP servers,
 * keeps everything else in the file, and is idempotent; `hasSynapseMcpEntry` (the start-up skip)
 * sees what it wrote.
 */

let t: ReturnType<typeof tempHome>;
let project: string;
beforeEach(() => {
  t = tempHome();
  project = fs.mkdtempSync(path.join(os.tmpdir(), 'synapse-mcp-install-'));
});
afterEach(() => {
  t.cleanup();
  fs.rmSync(project, { recursive: true, force: true });
});

const install = (profile: string, flags: Record<string, unknown> = {}) =>
  runCommand((io: CommandIo) => mcpInstall(profile, { json: true, ...flags }, io), { env: t.env, cwd: project });
const readJson = (file: string) => JSON.parse(fs.readFileSync(file, 'utf8'));

describe('synapse mcp install', () => {
  it('claude: adds synapse to .mcp.json next to the servers already there, once', async () => {
    const file = path.join(project, '.mcp.json');
    fs.writeFileSync(file, JSON.stringify({ mcpServers: { other: { command: 'other-server' } }, extra: 1 }));
    expect(hasSynapseMcpEntry('claude', project, t.env)).toBe(false);
    const first = await install('claude');
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ profile: 'claude', scope: 'project', file, action: 'created' });
    expect(readJson(file)).toEqual({
      mcpServers: { other: { command: 'other-server' }, synapse: { type: 'stdio', command: 'synapse', args: ['mcp', 'serve'] } },
      extra: 1,
    });
    // Claude Code starts a project server only once approved: install approves it locally, keeping other settings.
    const local = path.join(project, '.claude', 'settings.local.json');
    expect(readJson(local)).toEqual({ enabledMcpjsonServers: ['synapse'] });
    fs.writeFileSync(local, JSON.stringify({ enabledMcpjsonServers: ['docs'], model: 'opus' }));
    expect(JSON.parse((await install('claude')).stdout)).toMatchObject({ action: 'unchanged', approved_in: local });
    expect(readJson(local)).toEqual({ enabledMcpjsonServers: ['docs', 'synapse'], model: 'opus' });
    expect(JSON.parse((await install('claude', { command: 'node /opt/synapse/bin/synapse.js' })).stdout)).toMatchObject({
      action: 'updated',
      entry: { command: 'node', args: ['/opt/synapse/bin/synapse.js', 'mcp', 'serve'] },
    });
    expect(hasSynapseMcpEntry('claude', project, t.env)).toBe(true);
    expect(hasSynapseMcpEntry('gemini', project, t.env)).toBe(false);
  });

  it('codex: appends [mcp_servers.synapse] to ~/.codex/config.toml, keeping comments and other tables', async () => {
    const file = path.join(t.home, '.codex', 'config.toml');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const before = '# my settings\nmodel = "o3"\n\n[mcp_servers.docs]\ncommand = "docs-mcp"\n';
    fs.writeFileSync(file, before);
    expect(JSON.parse((await install('codex')).stdout)).toMatchObject({ scope: 'user', file, action: 'created' });
    const text = fs.readFileSync(file, 'utf8');
    expect(text.startsWith(before.trimEnd())).toBe(true);
    const toml = parseToml(text) as any;
    expect(toml.mcp_servers.docs).toEqual({ command: 'docs-mcp' });
    expect(toml.mcp_servers.synapse).toMatchObject({ command: 'synapse', args: ['mcp', 'serve'] });
    expect(toml.mcp_servers.synapse.env_vars).toContain('SYNAPSE_AGENT_ID');
    expect(JSON.parse((await install('codex')).stdout).action).toBe('unchanged');
    expect(JSON.parse((await install('codex', { command: '/usr/local/bin/synapse' })).stdout).action).toBe('updated');
    const after = fs.readFileSync(file, 'utf8');
    expect(after.match(/\[mcp_servers\.synapse\]/g)).toHaveLength(1);
    expect((parseToml(after) as any).mcp_servers.synapse.command).toBe('/usr/local/bin/synapse');
    expect(after).toContain('# my settings');
    expect(hasSynapseMcpEntry('codex', project, t.env)).toBe(true);
    const projectScope = await install('codex', { scope: 'project' });
    expect(projectScope.code).toBe(1);
    expect(projectScope.stderr).toMatch(/--scope user/);
  });

  it('claude --scope user: ~/.claude.json keeps its keys; a server of the local scope (projects[dir]) counts too', async () => {
    const file = path.join(t.home, '.claude.json');
    fs.writeFileSync(file, JSON.stringify({ hasCompletedOnboarding: true, projects: {} }));
    expect(JSON.parse((await install('claude', { scope: 'user' })).stdout)).toMatchObject({ file, action: 'created', approved_in: null });
    expect(readJson(file)).toMatchObject({ hasCompletedOnboarding: true, projects: {}, mcpServers: { synapse: { command: 'synapse' } } });
    expect(fs.existsSync(path.join(project, '.claude'))).toBe(false);
    fs.writeFileSync(file, JSON.stringify({ projects: { [project]: { mcpServers: { synapse: { command: 'synapse', args: ['mcp', 'serve'] } } } } }));
    expect(hasSynapseMcpEntry('claude', project, t.env)).toBe(true);
    expect(hasSynapseMcpEntry('claude', t.home, t.env)).toBe(false);
  });

  it('the start-up check reads Codex TOML as text: a quoted table name counts, a commented-out one does not', () => {
    const file = path.join(t.home, '.codex', 'config.toml');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, '# [mcp_servers.synapse]\n[mcp_servers.synapse-old]\ncommand = "x"\n');
    expect(hasSynapseMcpEntry('codex', project, t.env)).toBe(false);
    fs.writeFileSync(file, '[mcp_servers."synapse"]\ncommand = "synapse"\n');
    expect(hasSynapseMcpEntry('codex', project, t.env)).toBe(true);
    fs.writeFileSync(file, '[mcp_servers.synapse.env]\nA = "1"\n');
    expect(hasSynapseMcpEntry('codex', project, t.env)).toBe(true);
    expect(hasSynapseMcpEntry('echo', project, t.env)).toBe(false);
  });

  it('gemini: .gemini/settings.json in the project, or ~/.gemini with --scope user', async () => {
    const projectFile = path.join(project, '.gemini', 'settings.json');
    expect(JSON.parse((await install('gemini')).stdout)).toMatchObject({ file: projectFile, action: 'created' });
    expect(readJson(projectFile).mcpServers.synapse).toEqual({ command: 'synapse', args: ['mcp', 'serve'] });
    const userFile = path.join(t.home, '.gemini', 'settings.json');
    fs.mkdirSync(path.dirname(userFile), { recursive: true });
    fs.writeFileSync(userFile, JSON.stringify({ theme: 'dark' }));
    await install('gemini', { scope: 'user' });
    expect(readJson(userFile)).toEqual({ theme: 'dark', mcpServers: { synapse: { command: 'synapse', args: ['mcp', 'serve'] } } });
  });

  it('refuses an unknown profile and a corrupt file, and says what to do', async () => {
    const unknown = await install('opencode');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/knows claude, codex, gemini/);
    fs.writeFileSync(path.join(project, '.mcp.json'), '{ not json');
    const corrupt = await install('claude');
    expect(corrupt.code).toBe(1);
    expect(corrupt.stderr).toContain(path.join(project, '.mcp.json'));
    expect(fs.readFileSync(path.join(project, '.mcp.json'), 'utf8')).toBe('{ not json');
    expect(hasSynapseMcpEntry('claude', project, t.env)).toBe(false);
  });

  it('the built CLI prints a human line and exits 0', async () => {
    const r = await runCli(['mcp', 'install', 'claude'], { env: t.env, cwd: project });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`added the Synapse MCP server to ${path.join(project, '.mcp.json')}`);
  });
});
