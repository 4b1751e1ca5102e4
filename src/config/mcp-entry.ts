import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SynapseError } from '../errors.js';
import { readJsonFile } from '../json-file.js';
import type { Env } from './paths.js';

/**
 * The Synapse entry in an agent CLI's own MCP configuration: where each CLI keeps it, whether it
 * is there (then the start-up instruction is not typed into the terminal: the agent learns
 * Synapse from the MCP server). Writing it is mcp-install.ts.
 */
export const MCP_ENTRY_NAME = 'synapse';
export const MCP_PROFILES = ['claude', 'codex', 'gemini'] as const;
export type McpProfile = (typeof MCP_PROFILES)[number];
export type McpScope = 'user' | 'project';

/** The variables a server started by the CLI must see to know its agent (Codex passes only those listed). */
export const FORWARDED_ENV = [
  'SYNAPSE_AGENT_ID',
  'SYNAPSE_AGENT_TYPE',
  'SYNAPSE_PORT',
  'SYNAPSE_REGISTRY_DIR',
  'SYNAPSE_HOME',
  'SYNAPSE_PROJECT_DIR',
  'SYNAPSE_REPLY_TARGET_DIR',
];

export interface McpServerCommand {
  command: string;
  args: string[];
}

function home(env: Env): string {
  return env.HOME || os.homedir();
}

/** The file `profile` reads its MCP servers from, in that scope. Codex has only a user file. */
export function mcpConfigFile(profile: McpProfile, scope: McpScope, cwd: string, env: Env): string {
  if (profile === 'claude') return scope === 'project' ? path.join(cwd, '.mcp.json') : path.join(env.CLAUDE_CONFIG_DIR || home(env), '.claude.json');
  if (profile === 'codex') return path.join(env.CODEX_HOME || path.join(home(env), '.codex'), 'config.toml');
  return path.join(scope === 'project' ? cwd : home(env), '.gemini', 'settings.json');
}

export function isMcpProfile(id: string): id is McpProfile {
  return (MCP_PROFILES as readonly string[]).includes(id);
}

export function readObject(file: string): Record<string, unknown> | null {
  const v = readJsonFile(file, 'MCP configuration');
  if (v === null) return null;
  if (typeof v !== 'object' || Array.isArray(v)) throw new SynapseError('corrupt_file', `${file} must hold a JSON object; fix it or remove it`, { file });
  return v as Record<string, unknown>;
}

/**
 * Whether a Codex config.toml has an `[mcp_servers.synapse]` table. Read as text, not parsed: the
 * agent's start-up asks this, and a TOML parser is not worth loading there.
 */
function tomlHasEntry(file: string): boolean {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return false;
  }
  return new RegExp(`^\\s*\\[\\s*mcp_servers\\s*\\.\\s*"?${MCP_ENTRY_NAME}"?\\s*[\\].]`, 'm').test(text);
}

export const child = (o: unknown, key: string): unknown => (typeof o === 'object' && o !== null ? (o as Record<string, unknown>)[key] : undefined);

/** The Synapse entry a JSON MCP configuration holds, or undefined. */
function jsonEntryIn(file: string, cwd: string): unknown {
  const config = readObject(file);
  const direct = child(child(config, 'mcpServers'), MCP_ENTRY_NAME);
  // ~/.claude.json also keeps servers per project ("local" scope).
  return direct ?? child(child(child(child(config, 'projects'), cwd), 'mcpServers'), MCP_ENTRY_NAME);
}

/** Whether the CLI of `profileId` already starts the Synapse MCP server here (any scope). A file that cannot be read counts as no. */
export function hasSynapseMcpEntry(profileId: string, cwd: string, env: Env): boolean {
  if (!isMcpProfile(profileId)) return false;
  const scopes: McpScope[] = profileId === 'codex' ? ['user'] : ['project', 'user'];
  return scopes.some((scope) => {
    try {
      const file = mcpConfigFile(profileId, scope, cwd, env);
      return profileId === 'codex' ? tomlHasEntry(file) : jsonEntryIn(file, cwd) !== undefined;
    } catch {
      return false;
    }
  });
}
