import type { Command } from 'commander';
import { SynapseError } from '../../errors.js';
import { printJson, println, processIo, type CommandIo } from '../io.js';

/**
 * `synapse mcp serve | install`. The MCP SDK loads only inside `serve`, so no other command
 * pays for it.
 */

export interface McpInstallFlags {
  scope?: 'user' | 'project';
  command?: string;
  json?: boolean;
}

/** `synapse mcp install <profile>`: the Synapse entry in that CLI's MCP configuration. */
export async function mcpInstall(profile: string, flags: McpInstallFlags, io: CommandIo): Promise<void> {
  const { MCP_PROFILES, isMcpProfile } = await import('../../config/mcp-entry.js');
  const { installSynapseMcpEntry } = await import('../../config/mcp-install.js');
  if (!isMcpProfile(profile))
    throw new SynapseError(
      'usage',
      `synapse mcp install knows ${MCP_PROFILES.join(', ')}, not "${profile}"; for another CLI, add "synapse mcp serve" to its MCP settings by hand`,
    );
  const scope = flags.scope ?? (profile === 'codex' ? 'user' : 'project');
  const [command, ...prefix] = (flags.command ?? 'synapse').split(' ').filter(Boolean);
  if (!command) throw new SynapseError('usage', '--command must name a program, e.g. --command synapse');
  const result = installSynapseMcpEntry(profile, scope, io.cwd, io.env, { command, args: [...prefix, 'mcp', 'serve'] });
  if (flags.json) return printJson(io, result);
  const said = { created: 'added the Synapse MCP server to', updated: 'updated the Synapse MCP server in', unchanged: 'the Synapse MCP server is already in' }[
    result.action
  ];
  println(io, `${said} ${result.file}`);
  if (result.action !== 'unchanged')
    println(io, `${profile} agents started here now get Synapse's tools over MCP (and no start-up instruction in their terminal).`);
}

export function registerMcpCommands(program: Command): void {
  const mcp = program
    .command('mcp')
    .description('The Synapse MCP server: agents call Synapse as tools (send_message, board, locks, memory …)')
    .addHelpText(
      'after',
      '\nExamples:\n  synapse mcp install claude     then `synapse claude` has the Synapse tools\n  synapse mcp serve              (started by the agent CLI, on stdio)\n\nSee guides/mcp.md.',
    );

  mcp
    .command('serve')
    .description('Run the MCP server on stdio (the agent CLI starts it; identity from $SYNAPSE_AGENT_ID)')
    .addHelpText(
      'after',
      '\nTools: bootstrap_agent, list_agents, analyze_task, send_message, reply, board_list, board_create,\n' +
        'board_claim, board_complete, lock_file, unlock_file, memory_save, memory_search.\n' +
        'Resources: synapse://instructions, synapse://settings, synapse://agent-card.\n\n' +
        'Example (an MCP client configuration):\n  {"mcpServers": {"synapse": {"command": "synapse", "args": ["mcp", "serve"]}}}',
    )
    .action(async () => {
      const { serveMcp } = await import('../mcp/serve.js');
      await serveMcp(processIo());
    });

  mcp
    .command('install')
    .description("Add the Synapse MCP server to an agent CLI's MCP configuration (idempotent; other entries are kept)")
    .argument('<profile>', 'claude (.mcp.json), codex (~/.codex/config.toml) or gemini (.gemini/settings.json)')
    .addOption(
      program.createOption('--scope <scope>', 'project (claude, gemini) or user (~/.claude.json, ~/.gemini/settings.json, codex)').choices(['user', 'project']),
    )
    .option('--command <cmd>', 'how the CLI runs synapse, split at spaces (default "synapse"; e.g. "node /opt/synapse/bin/synapse.js")')
    .option('--json', 'print {profile, scope, file, action, entry, approved_in}')
    .addHelpText(
      'after',
      '\nWhen the entry is there, `synapse <profile>` skips typing the start-up instruction into the CLI:\n' +
        'the agent learns Synapse from the MCP server (bootstrap_agent). For Claude Code (project scope) the\n' +
        'server is also approved in .claude/settings.local.json, so Claude does not stop to ask.\n\n' +
        'Examples:\n  synapse mcp install claude\n  synapse mcp install codex\n  synapse mcp install gemini --scope user --json',
    )
    .action(async (profile: string, flags: McpInstallFlags) => {
      await mcpInstall(profile, flags, processIo());
    });
}
