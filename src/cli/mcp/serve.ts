import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { CommandIo } from '../io.js';
import { buildMcpServer } from './server.js';

/**
 * `synapse mcp serve`: the MCP server on stdio until the client closes it. Standard output is
 * the protocol, so nothing else may print there; diagnostics go to stderr.
 */
export async function serveMcp(io: CommandIo): Promise<void> {
  const server = buildMcpServer({ env: io.env, cwd: io.cwd, parentPid: io.parentPid });
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
  });
  await server.connect(transport);
  await closed;
  await server.close();
}
