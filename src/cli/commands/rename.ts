import fs from 'node:fs';
import path from 'node:path';
import { requestJson } from '../../a2a/http-json.js';
import { SynapseError } from '../../errors.js';
import { writtenByOriginal, type RegistryEntry } from '../../registry/entry.js';
import { findAgent } from '../../registry/lookup.js';
import { printJson, println, type CommandIo } from '../io.js';

export interface RenameFlags {
  name?: string;
  role?: string;
  clear?: boolean;
  json?: boolean;
}

/** `--role @file`: the file's text (relative to the working directory). */
function roleText(role: string | undefined, io: CommandIo): string | undefined {
  if (role === undefined || !role.startsWith('@')) return role;
  try {
    return fs.readFileSync(path.resolve(io.cwd, role.slice(1)), 'utf8').trim();
  } catch (err) {
    throw new SynapseError('invalid_input', `cannot read role file ${role.slice(1)}: ${(err as Error).message}`);
  }
}

/**
 * `synapse rename <target>`: a new name and/or role for a running agent, in its registry entry and
 * in the agent itself (`POST /rename`, so its heartbeats keep it); `--clear` removes both first.
 * An agent of the original Python Synapse has no such route: its entry is rewritten, as its own
 * `rename` does.
 */
export async function renameCommand(target: string, flags: RenameFlags, io: CommandIo): Promise<void> {
  if (flags.name === undefined && flags.role === undefined && !flags.clear)
    throw new SynapseError('usage', 'say what changes: --name N, --role TEXT (or @file), or --clear');
  const { entry, registry, live } = findAgent(target, io.env);
  const role = roleText(flags.role, io);
  const change: { name?: string | null; role?: string | null } = flags.clear ? { name: flags.name ?? null, role: role ?? null } : {};
  if (!flags.clear) {
    if (flags.name !== undefined) change.name = flags.name;
    if (role !== undefined) change.role = role;
  }
  if (change.name) {
    const taken = live.find((e) => e.name === change.name && e.agent_id !== entry.agent_id);
    if (taken) throw new SynapseError('conflict', `the name "${change.name}" is taken by ${taken.agent_id}`);
  }
  let updated: RegistryEntry;
  const res = await requestJson<{ agent?: RegistryEntry; error?: { message?: string } }>(`${entry.endpoint}/rename`, {
    method: 'POST',
    body: change,
    timeoutMs: 5000,
  }).catch((err: Error) => {
    throw new SynapseError('agent_unreachable', `${entry.agent_id} did not answer: ${err.message}`);
  });
  if (res.status === 200 && res.body.agent) updated = res.body.agent;
  else if ((res.status === 404 || res.status === 405) && writtenByOriginal(entry)) {
    updated = { ...entry, ...(change.name !== undefined ? { name: change.name } : {}), ...(change.role !== undefined ? { role: change.role } : {}) };
    registry.write(updated);
  } else throw new SynapseError('internal', `${entry.agent_id} refused the rename (${res.status}): ${res.body.error?.message ?? 'no reason given'}`);
  if (flags.json) return printJson(io, updated);
  println(io, `${updated.agent_id}: name ${updated.name ?? '-'}, role ${updated.role ?? '-'}`);
}
