import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { callCommand, type CallContext } from './command-call.js';

/**
 * The messaging tools: `list_agents`, `send_message`, `reply`. Each is `synapse list / send /
 * reply --json` run in-process (see command-call.ts), so the sender is this agent
 * (`SYNAPSE_AGENT_ID`), the target is resolved and framed exactly as for the command.
 */
export function registerMessagingTools(server: McpServer, ctx: CallContext): void {
  server.registerTool(
    'list_agents',
    {
      title: 'List agents',
      description: 'The running Synapse agents (id, name, type, role, status, port, working directory), as `synapse list --json`.',
      inputSchema: {},
    },
    async () => {
      const { listAgents } = await import('../commands/lifecycle.js');
      return callCommand(ctx, (io) => listAgents({ json: true }, io));
    },
  );

  server.registerTool(
    'send_message',
    {
      title: 'Send a message to another agent',
      description:
        'Sends a message into another agent\'s terminal, framed as "A2A: [From: YOU] …", as `synapse send`. ' +
        'response_mode "wait" blocks until the answer and returns it; "notify" (the usual default) returns at once and the answer ' +
        'arrives in your terminal later; "silent" expects no answer.',
      inputSchema: {
        target: z.string().min(1).describe('name, agent id, type-port (claude-8100) or type'),
        message: z.string().min(1).describe('the message'),
        response_mode: z.enum(['wait', 'notify', 'silent']).optional().describe('default: settings a2a.flow (auto = notify)'),
        priority: z.number().int().min(1).max(5).optional().describe('1-5, default 3; 5 interrupts the target first'),
        timeout_seconds: z.number().positive().optional().describe('with wait: stop waiting after this long'),
        create_task: z.boolean().optional().describe('also create a linked task on the shared board, assigned to the target'),
        force: z.boolean().optional().describe('send even though the target works in another directory'),
      },
    },
    async (a) => {
      const { sendCommand } = await import('../commands/send.js');
      const flags = {
        json: true,
        ...(a.response_mode ? { [a.response_mode]: true } : {}),
        ...(a.priority !== undefined ? { priority: String(a.priority) } : {}),
        ...(a.timeout_seconds !== undefined ? { timeout: String(a.timeout_seconds) } : {}),
        ...(a.create_task ? { task: true } : {}),
        ...(a.force ? { force: true } : {}),
      };
      return callCommand(ctx, (io) => sendCommand(a.target, a.message, flags, io));
    },
  );

  server.registerTool(
    'reply',
    {
      title: 'Reply to a message',
      description:
        'Answers the newest message that expects a reply ([REPLY EXPECTED]), or the one named by to / task_id, as `synapse reply`. ' +
        'Give text, or fail with the reason the task could not be done.',
      inputSchema: {
        text: z.string().optional().describe('the answer'),
        fail: z.string().optional().describe('instead of an answer: why the task failed'),
        to: z.string().optional().describe('answer the newest message from this sender (id or name)'),
        task_id: z.string().optional().describe('answer the message of this task (id or prefix)'),
      },
    },
    async (a) => {
      const { replyCommand } = await import('../commands/reply.js');
      const flags = {
        json: true,
        ...(a.fail !== undefined ? { fail: a.fail } : {}),
        ...(a.to !== undefined ? { to: a.to } : {}),
        ...(a.task_id !== undefined ? { task: a.task_id } : {}),
      };
      return callCommand(ctx, (io) => replyCommand(a.text, flags, io));
    },
  );
}
