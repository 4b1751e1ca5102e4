import { exitFor } from '../exit.js';
import type { CommandIo } from '../io.js';

/**
 * How an MCP tool runs a CLI command: the very function commander calls, with `--json` set and a
 * `CommandIo` that collects what it prints. So a tool and its command cannot drift apart: the
 * same validation, the same store calls, the same errors.
 *
 * Standard input belongs to the MCP protocol here: a command that would read it gets an error,
 * and one that would ask a question gets "no".
 */
export interface ToolResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  isError?: boolean;
}

export interface CallContext {
  env: NodeJS.ProcessEnv;
  cwd: string;
  parentPid: number;
}

export async function callCommand(ctx: CallContext, command: (io: CommandIo) => unknown): Promise<ToolResult> {
  let stdout = '';
  let stderr = '';
  const io: CommandIo = {
    env: ctx.env,
    cwd: ctx.cwd,
    out: (text) => void (stdout += text),
    err: (text) => void (stderr += text),
    readStdin: () => Promise.reject(new Error('standard input carries the MCP protocol: give the text as a tool argument')),
    isTerminal: () => false,
    confirm: () => Promise.resolve(false),
    parentPid: ctx.parentPid,
  };
  try {
    await command(io);
  } catch (err) {
    const exit = exitFor(err);
    const why = (exit.message ?? '').replace(/^synapse: /, '').trim();
    return { content: [{ type: 'text', text: [stdout.trim(), why || `failed (exit ${exit.code})`, stderr.trim()].filter(Boolean).join('\n') }], isError: true };
  }
  return { content: [{ type: 'text', text: stdout.trim() || stderr.trim() || 'ok' }] };
}

/** A tool's answer that is data, not a command's output. */
export function jsonResult(value: unknown): ToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value, null, 2) }] };
}

/** A tool's refusal: the model reads the message and can try again. */
export function errorResult(message: string): ToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}
