import { requestJson } from '../../a2a/http-json.js';
import { peerTls } from '../../a2a/peer-tls.js';
import { renderStartupInstruction } from '../../config/instructions.js';
import { envSetting } from '../../config/env-setting.js';
import { loadSettings } from '../../config/settings.js';
import { inDelegateMode, type RegistryEntry } from '../../registry/entry.js';
import { liveAgents } from '../../registry/lookup.js';
import { projectTrustCheck } from '../../registry/project-trust.js';
import { resolveSender } from '../../registry/sender.js';
import type { CallContext } from './command-call.js';

/**
 * Who the MCP server speaks for: the agent named by `SYNAPSE_AGENT_ID` (the runtime puts it in its
 * CLI's environment, and the CLI passes it to the servers it starts), else the registered agent
 * among this process's ancestors. Looked up on every call: the agent may register after the CLI
 * started its MCP servers.
 */
export interface Self {
  id: string | null;
  entry: RegistryEntry | null;
  peers: RegistryEntry[];
}

export function whoAmI(ctx: CallContext): Self {
  const live = liveAgents(ctx.env);
  const sender = resolveSender(live, { env: ctx.env, pid: ctx.parentPid });
  return { id: sender.id, entry: sender.entry, peers: live.filter((e) => e.agent_id !== sender.id) };
}

/** The start-up instruction this agent is (or would be) given in its terminal. */
export function instructionsFor(ctx: CallContext, self: Self): string {
  const cwd = self.entry?.working_dir ?? ctx.cwd;
  return renderStartupInstruction(self.entry?.agent_type ?? 'default', loadSettings(cwd, ctx.env), cwd, ctx.env, {
    agent_id: self.id ?? 'unknown',
    port: self.entry?.port ?? envSetting(ctx.env, 'SYNAPSE_PORT') ?? 0,
    endpoint: self.entry?.endpoint ?? null,
    name: self.entry?.name ?? null,
    role: self.entry?.role ?? null,
    delegate: self.entry ? inDelegateMode(self.entry) : false,
  });
}

/** The merged settings (never the environment: it may hold keys). */
export function settingsFor(ctx: CallContext, self: Self): unknown {
  return loadSettings(self.entry?.working_dir ?? ctx.cwd, ctx.env, projectTrustCheck(ctx.env));
}

/** The agent card as the agent itself serves it (`/.well-known/agent.json`). */
export async function agentCardOf(ctx: CallContext, self: Self): Promise<unknown> {
  if (!self.entry) throw new Error(notAnAgent(self));
  const res = await requestJson(`${self.entry.endpoint}/.well-known/agent.json`, { timeoutMs: 5000, tls: peerTls(ctx.env) });
  if (res.status !== 200) throw new Error(`${self.entry.agent_id} answered ${res.status} for its agent card`);
  return res.body;
}

export function notAnAgent(self: Self): string {
  return self.id
    ? `agent ${self.id} is not running (no live agent has that id or name)`
    : 'this MCP server does not run inside a Synapse agent: start the CLI with `synapse <profile>`, or set SYNAPSE_AGENT_ID';
}

/** A peer as `bootstrap_agent` lists it. */
export function peerSummary(e: RegistryEntry) {
  return { agent_id: e.agent_id, name: e.name, type: e.agent_type, role: e.role, status: e.status, working_dir: e.working_dir };
}
