import { spawn } from 'node:child_process';
import type { Env } from '../config/paths.js';
import { SynapseError, type ErrorCode } from '../errors.js';
import { synapseBin } from './launch.js';

/** `synapse __team` (cli/detached.ts TEAM_OP): the hidden command an agent runs for its team routes. */
const TEAM_OP = '__team';

interface Answer {
  ok?: boolean;
  result?: unknown;
  error?: { code: ErrorCode; message: string };
}

function parseAnswer(out: string): Answer | null {
  try {
    return JSON.parse(out) as Answer;
  } catch {
    return null;
  }
}

/**
 * `POST /spawn` and `POST /team/start`: run by this agent's own `synapse` as a child process in
 * its working directory, with `SYNAPSE_AGENT_ID` set to this agent, so the new agents record it as
 * their spawning parent and open their panes beside this agent's (when it runs in one). The team
 * code never loads into an agent that is not asked to spawn.
 */
export function runTeamOp(op: 'spawn' | 'team', request: unknown, ctx: { env: Env; cwd: string; agentId: string }): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [synapseBin, TEAM_OP], {
      cwd: ctx.cwd,
      env: { ...ctx.env, SYNAPSE_AGENT_ID: ctx.agentId },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
    child.on('error', (e) => reject(new SynapseError('internal', `could not run synapse: ${e.message}`)));
    child.on('close', (code) => {
      const answer = parseAnswer(out);
      if (answer?.ok) resolve(answer.result);
      else if (answer?.error) reject(new SynapseError(answer.error.code, answer.error.message));
      else reject(new SynapseError('internal', `synapse ${op} exited ${code}: ${err.trim().slice(-2000)}`));
    });
    child.stdin.end(JSON.stringify({ op, request }));
  });
}
