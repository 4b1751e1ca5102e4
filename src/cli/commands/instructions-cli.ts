import { instructionParts, renderInstructions } from '../../config/instructions.js';
import { inDelegateMode } from '../../registry/entry.js';
import { loadSettings } from '../../config/settings.js';
import { SynapseError } from '../../errors.js';
import { printJson, println, type CommandIo } from '../io.js';

/** A profile id ('default' = the default instruction), checked against the shipped profiles. */
async function profileOf(raw: string | undefined): Promise<{ profile: string; port: number }> {
  if (raw === undefined || raw === 'default') return { profile: 'default', port: 8100 };
  const { findProfile, profileNames } = await import('../../profiles/index.js');
  const p = findProfile(raw);
  if (!p) throw new SynapseError('unknown_profile', `unknown profile "${raw}"; use one of ${profileNames()} (or default)`);
  return { profile: p.id, port: p.ports.first };
}

/** `synapse instructions show [profile]`: the start-up instruction as an agent of that profile gets it. */
export async function instructionsShow(raw: string | undefined, flags: { json?: boolean }, io: CommandIo): Promise<void> {
  const { profile, port } = await profileOf(raw);
  const agentId = `synapse-${profile === 'default' ? 'claude' : profile}-${port}`;
  const text = renderInstructions(profile, loadSettings(io.cwd, io.env), io.cwd, io.env, { agent_id: agentId, port });
  if (flags.json) return printJson(io, { profile, agent_id: agentId, port, text });
  println(io, text);
}

/** `synapse instructions files [profile]`: which files make up the instruction, and where each was found. */
export async function instructionsFiles(raw: string | undefined, flags: { json?: boolean }, io: CommandIo): Promise<void> {
  const { profile } = await profileOf(raw);
  const parts = instructionParts(profile, loadSettings(io.cwd, io.env), io.cwd, io.env);
  if (flags.json) return printJson(io, parts);
  for (const p of parts) println(io, `${p.reason}: ${p.name ?? '(inline text)'} — ${p.file ?? p.source}`);
}

/** `synapse instructions send <target> [--preview]`: sends a running agent its instruction again. */
export async function instructionsSend(target: string, flags: { preview?: boolean; json?: boolean; force?: boolean }, io: CommandIo): Promise<void> {
  const { findAgent } = await import('../../registry/lookup.js');
  const { entry } = findAgent(target, io.env);
  const settings = loadSettings(io.cwd, io.env);
  const text = renderInstructions(entry.agent_type, settings, io.cwd, io.env, {
    agent_id: entry.agent_id,
    port: entry.port,
    endpoint: entry.endpoint,
    name: entry.name,
    role: entry.role,
    delegate: inDelegateMode(entry),
  });
  if (flags.preview) {
    if (flags.json) return printJson(io, { target: entry.agent_id, text });
    return println(io, text);
  }
  const { sendCommand } = await import('./send.js');
  await sendCommand(entry.agent_id, text, { silent: true, ...(flags.json ? { json: true } : {}), ...(flags.force ? { force: true } : {}) }, io, {
    mode: 'silent',
    coordination: true,
  });
}
