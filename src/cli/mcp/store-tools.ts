import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { callerIdentity } from '../commands/store-cli.js';
import { callCommand, type CallContext } from './command-call.js';

/**
 * The shared-store tools: the task board, file locks and shared memory. Each is the matching
 * `synapse tasks / file-safety / memory … --json` run in-process (see command-call.ts), acting as
 * this agent (`SYNAPSE_AGENT_ID`) in its project (`SYNAPSE_PROJECT_DIR` or the working directory).
 */
// eslint-disable-next-line max-lines-per-function -- tool declarations, one thin call each
export function registerStoreTools(server: McpServer, ctx: CallContext): void {
  const me = () => callerIdentity(ctx.env);

  server.registerTool(
    'board_list',
    {
      title: 'List board tasks',
      description: "The project's shared task board, as `synapse tasks list --json`.",
      inputSchema: {
        status: z.string().optional().describe('comma-separated: pending, in_progress, completed, failed'),
        assignee: z.string().optional().describe('agent id or name'),
        component: z.string().optional(),
      },
    },
    async (a) => {
      const { listTasks } = await import('../commands/tasks.js');
      return callCommand(ctx, (io) => listTasks({ ...a, format: 'json', json: true }, io));
    },
  );

  server.registerTool(
    'board_create',
    {
      title: 'Create a board task',
      description: 'Adds a task to the shared board (created by you), as `synapse tasks create --json`.',
      inputSchema: {
        subject: z.string().min(1).describe('one line: what to do'),
        description: z.string().optional(),
        priority: z.number().int().min(1).max(5).optional().describe('1-5, default 3'),
        blocked_by: z.array(z.string()).optional().describe('ids (or prefixes) of tasks that must complete first'),
        component: z.string().optional(),
        milestone: z.string().optional(),
      },
    },
    async (a) => {
      const { createTask } = await import('../commands/tasks.js');
      const { subject, priority, blocked_by: blockedBy, ...rest } = a;
      return callCommand(ctx, (io) => createTask(subject, { ...rest, priority: String(priority ?? 3), ...(blockedBy ? { blockedBy } : {}), json: true }, io));
    },
  );

  server.registerTool(
    'board_claim',
    {
      title: 'Claim a board task',
      description: 'Claims a pending task for you; exactly one claimer wins. As `synapse tasks claim --json`.',
      inputSchema: { id: z.string().min(1).describe('task id or prefix') },
    },
    async (a) => {
      const { claimTask } = await import('../commands/tasks.js');
      return callCommand(ctx, (io) => claimTask(a.id, { json: true }, io));
    },
  );

  server.registerTool(
    'board_complete',
    {
      title: 'Complete a board task',
      description: 'Marks a task completed and returns the tasks it unblocked. As `synapse tasks complete --json`.',
      inputSchema: { id: z.string().min(1).describe('task id or prefix') },
    },
    async (a) => {
      const { completeTask } = await import('../commands/tasks.js');
      return callCommand(ctx, (io) => completeTask(a.id, { json: true }, io));
    },
  );

  server.registerTool(
    'lock_file',
    {
      title: 'Lock a file',
      description: 'Locks a file for you before you edit it (or renews your lock), as `synapse file-safety lock <path> <you> --json`.',
      inputSchema: {
        path: z.string().min(1).describe('the file, relative to the project'),
        intent: z.string().optional().describe('what you are about to change'),
        ttl_seconds: z.number().int().positive().optional().describe('how long the lock lives, default 600'),
        wait_seconds: z.number().int().positive().optional().describe('wait this long for another holder to release it'),
      },
    },
    async (a) => {
      const { lockFile } = await import('../commands/file-safety.js');
      const o = {
        json: true,
        ttl: String(a.ttl_seconds ?? 600),
        wait: a.wait_seconds !== undefined,
        waitTimeout: String(a.wait_seconds ?? 60),
        waitInterval: '2',
        ...(a.intent !== undefined ? { intent: a.intent } : {}),
      };
      return callCommand(ctx, (io) => lockFile(a.path, me(), o, io));
    },
  );

  server.registerTool(
    'unlock_file',
    {
      title: 'Unlock a file',
      description: 'Releases your lock on a file, as `synapse file-safety unlock <path> <you> --json`.',
      inputSchema: { path: z.string().min(1) },
    },
    async (a) => {
      const { unlockFile } = await import('../commands/file-safety.js');
      return callCommand(ctx, (io) => unlockFile(a.path, me(), { json: true }, io));
    },
  );

  server.registerTool(
    'memory_save',
    {
      title: 'Save a shared note',
      description: "Saves (or updates) a note in the project's shared memory, as `synapse memory save --json`.",
      inputSchema: {
        key: z.string().min(1),
        content: z.string().min(1),
        tags: z.array(z.string()).optional(),
        notify: z.boolean().optional().describe('tell the other agents of this project about it'),
      },
    },
    async (a) => {
      const { saveMemory } = await import('../commands/memory.js');
      const o = { json: true, ...(a.tags ? { tags: a.tags.join(',') } : {}), ...(a.notify ? { notify: true } : {}) };
      return callCommand(ctx, (io) => saveMemory(a.key, a.content, o, io));
    },
  );

  server.registerTool(
    'memory_search',
    {
      title: 'Search shared notes',
      description: "Full-text search of the project's shared memory, best match first, as `synapse memory search --json`.",
      inputSchema: { query: z.string().min(1), limit: z.number().int().positive().optional().describe('default 10') },
    },
    async (a) => {
      const { searchMemory } = await import('../commands/memory.js');
      return callCommand(ctx, (io) => searchMemory(a.query, { limit: String(a.limit ?? 10), json: true }, io));
    },
  );
}
