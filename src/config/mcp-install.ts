import fs from 'node:fs';
import path from 'node:path';
import { parse as parseToml, stringify as stringifyToml } from 'smol-toml';
import { SynapseError } from '../errors.js';
import { child, FORWARDED_ENV, MCP_ENTRY_NAME, mcpConfigFile, readObject, type McpProfile, type McpScope, type McpServerCommand } from './mcp-entry.js';
import type { Env } from './paths.js';

/** `synapse mcp install`: writes the Synapse entry into a CLI's MCP configuration, touching nothing else in the file. */

function readToml(file: string): Record<string, unknown> | null {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new SynapseError('invalid_input', `cannot read ${file}: ${(err as Error).message}`, { file });
  }
  try {
    return parseToml(text);
  } catch (err) {
    throw new SynapseError('corrupt_file', `${file} is not valid TOML (${(err as Error).message.split('\n')[0]}); fix it first`, { file });
  }
}

export interface InstallResult {
  profile: McpProfile;
  scope: McpScope;
  file: string;
  action: 'created' | 'updated' | 'unchanged';
  entry: Record<string, unknown>;
  /** Claude Code, project scope: the local settings file that approves the server (else null). */
  approved_in: string | null;
}

function writeAtomic(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, text);
  fs.renameSync(tmp, file);
}

function installJson(file: string, entry: Record<string, unknown>): InstallResult['action'] {
  const config = readObject(file);
  const servers = child(config, 'mcpServers') ?? {};
  if (typeof servers !== 'object' || Array.isArray(servers))
    throw new SynapseError('corrupt_file', `${file}: key mcpServers must be an object; fix it first`, { file });
  const before = (servers as Record<string, unknown>)[MCP_ENTRY_NAME];
  if (JSON.stringify(before) === JSON.stringify(entry)) return 'unchanged';
  writeAtomic(file, `${JSON.stringify({ ...config, mcpServers: { ...servers, [MCP_ENTRY_NAME]: entry } }, null, 2)}\n`);
  return before === undefined ? 'created' : 'updated';
}

/**
 * Claude Code starts a server of a project's `.mcp.json` only once it is approved (a dialog that
 * would stop a wrapped, unattended CLI): the person who ran `synapse mcp install` approves it in
 * their own, uncommitted `.claude/settings.local.json`.
 */
function approveForClaude(cwd: string): string {
  const file = path.join(cwd, '.claude', 'settings.local.json');
  const settings = readObject(file) ?? {};
  const enabled: unknown = child(settings, 'enabledMcpjsonServers') ?? [];
  if (!Array.isArray(enabled) || !enabled.every((n): n is string => typeof n === 'string'))
    throw new SynapseError('corrupt_file', `${file}: key enabledMcpjsonServers must be an array of names; fix it first`, { file });
  if (!enabled.includes(MCP_ENTRY_NAME))
    writeAtomic(file, `${JSON.stringify({ ...settings, enabledMcpjsonServers: [...enabled, MCP_ENTRY_NAME] }, null, 2)}\n`);
  return file;
}

/** TOML keeps its comments: the table is appended, or its old text replaced, never the file re-printed. */
function installToml(file: string, entry: Record<string, unknown>): InstallResult['action'] {
  const before = child(child(readToml(file), 'mcp_servers'), MCP_ENTRY_NAME);
  if (JSON.stringify(before) === JSON.stringify(entry)) return 'unchanged';
  const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  const table = stringifyToml({ mcp_servers: { [MCP_ENTRY_NAME]: entry } }).trim();
  // Drop the old [mcp_servers.synapse] table (and its sub-tables) up to the next table header.
  const kept = text.replace(new RegExp(`^\\[mcp_servers\\.${MCP_ENTRY_NAME}(\\.[^\\]]*)?\\][^]*?(?=^\\[|(?![^]))`, 'gm'), '');
  const next = `${kept.trimEnd()}${kept.trim() ? '\n\n' : ''}${table}\n`;
  parseToml(next);
  writeAtomic(file, next);
  return before === undefined ? 'created' : 'updated';
}

/** Writes (or refreshes) the Synapse entry for `profile`; other entries and keys stay as they are. */
export function installSynapseMcpEntry(profile: McpProfile, scope: McpScope, cwd: string, env: Env, server: McpServerCommand): InstallResult {
  if (profile === 'codex' && scope === 'project')
    throw new SynapseError('usage', 'Codex reads MCP servers only from ~/.codex/config.toml ($CODEX_HOME): use --scope user');
  const file = mcpConfigFile(profile, scope, cwd, env);
  const entry: Record<string, unknown> =
    profile === 'codex'
      ? { command: server.command, args: server.args, env_vars: FORWARDED_ENV }
      : profile === 'claude'
        ? { type: 'stdio', command: server.command, args: server.args }
        : { command: server.command, args: server.args };
  const action = profile === 'codex' ? installToml(file, entry) : installJson(file, entry);
  const approvedIn = profile === 'claude' && scope === 'project' ? approveForClaude(cwd) : null;
  return { profile, scope, file, action, entry, approved_in: approvedIn };
}
