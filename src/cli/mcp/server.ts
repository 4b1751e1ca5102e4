import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { VERSION } from '../../version.js';
import { registerAnalyzeTool } from './analyze-tool.js';
import { jsonResult, errorResult, type CallContext } from './command-call.js';
import { agentCardOf, instructionsFor, notAnAgent, peerSummary, settingsFor, whoAmI } from './identity.js';
import { registerMessagingTools } from './messaging-tools.js';
import { registerStoreTools } from './store-tools.js';

const TOOL_GUIDE = [
  'Messages from peers arrive in your terminal as "A2A: [From: NAME (ID)] …"; [REPLY EXPECTED] wants an answer: call reply.',
  'Ask another agent with send_message (response_mode "wait" returns its answer); list_agents shows the team.',
  'Coordinate on the shared board (board_list, board_create, board_claim, board_complete), lock files before editing them ' +
    '(lock_file, unlock_file), and keep findings in shared memory (memory_save, memory_search).',
];

/** The resources: this agent's instructions, the merged settings, its agent card. */
function registerResources(server: McpServer, ctx: CallContext): void {
  const text = (uri: URL, value: string, mimeType = 'text/plain') => ({ contents: [{ uri: uri.href, mimeType, text: value }] });
  server.registerResource(
    'instructions',
    'synapse://instructions',
    { title: 'Start-up instructions', description: 'What this agent is told at start-up (.synapse/default.md, filled in).', mimeType: 'text/plain' },
    (uri) => text(uri, instructionsFor(ctx, whoAmI(ctx))),
  );
  server.registerResource(
    'settings',
    'synapse://settings',
    { title: 'Settings', description: 'The merged Synapse settings (user < project < local).', mimeType: 'application/json' },
    (uri) => text(uri, JSON.stringify(settingsFor(ctx, whoAmI(ctx)), null, 2), 'application/json'),
  );
  server.registerResource(
    'agent-card',
    'synapse://agent-card',
    { title: 'Agent card', description: "This agent's A2A agent card, as it serves it.", mimeType: 'application/json' },
    async (uri) => text(uri, JSON.stringify(await agentCardOf(ctx, whoAmI(ctx)), null, 2), 'application/json'),
  );
}

function registerBootstrap(server: McpServer, ctx: CallContext): void {
  server.registerTool(
    'bootstrap_agent',
    {
      title: 'Bootstrap this agent',
      description: 'Call once at the start: who you are in the Synapse team, your start-up instructions, your peers and how to work with them.',
      inputSchema: {},
    },
    () => {
      const self = whoAmI(ctx);
      if (!self.entry) return errorResult(notAnAgent(self));
      const e = self.entry;
      return jsonResult({
        agent: { agent_id: e.agent_id, name: e.name, role: e.role, type: e.agent_type, port: e.port, endpoint: e.endpoint, working_dir: e.working_dir },
        instructions: instructionsFor(ctx, self),
        peers: self.peers.map(peerSummary),
        how_to: TOOL_GUIDE,
      });
    },
  );
}

/** The Synapse MCP server: resources and tools, each tool a thin call into a CLI command. */
export function buildMcpServer(ctx: CallContext): McpServer {
  const server = new McpServer({ name: 'synapse', version: VERSION }, { instructions: TOOL_GUIDE.join('\n') });
  registerResources(server, ctx);
  registerBootstrap(server, ctx);
  registerMessagingTools(server, ctx);
  registerStoreTools(server, ctx);
  registerAnalyzeTool(server, ctx);
  return server;
}
