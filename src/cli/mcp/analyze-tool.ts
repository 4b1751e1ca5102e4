import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { envSetting } from '../../config/env-setting.js';
import { loadSuggestConfig, suggestConfigFile } from '../../config/suggest.js';
import { analyzeTask } from './analyze-task.js';
import { errorResult, jsonResult, type CallContext } from './command-call.js';

/** The files the working tree changes (`git status`), when the caller names none; [] outside git. */
async function changedFiles(cwd: string): Promise<string[]> {
  try {
    const { stdout } = await promisify(execFile)('git', ['status', '--porcelain', '--untracked-files=all'], { cwd, timeout: 5000 });
    return stdout
      .split('\n')
      .filter((l) => l.length > 3)
      .map((l) => l.slice(3).replace(/^.* -> /, ''));
  } catch {
    return [];
  }
}

export function registerAnalyzeTool(server: McpServer, ctx: CallContext): void {
  server.registerTool(
    'analyze_task',
    {
      title: 'Analyze a task',
      description:
        'Says whether a task is worth splitting across a team and suggests the agents and their tasks, from the triggers of ' +
        '.synapse/suggest.yaml (file count, several directories, missing tests, prompt size, keywords).',
      inputSchema: {
        prompt: z.string().min(1).describe('the task as given'),
        files: z.array(z.string()).optional().describe('the files it touches (default: what git status shows changed)'),
      },
    },
    async (a) => {
      const cwd = envSetting(ctx.env, 'SYNAPSE_PROJECT_DIR') ?? ctx.cwd;
      const file = suggestConfigFile(cwd, ctx.env);
      try {
        const config = await loadSuggestConfig(file);
        const files = a.files ?? (await changedFiles(cwd));
        return jsonResult({ ...analyzeTask(config, { prompt: a.prompt, files }), config: file });
      } catch (err) {
        return errorResult((err as Error).message);
      }
    },
  );
}
