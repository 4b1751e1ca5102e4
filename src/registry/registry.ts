import fs from 'node:fs';
import path from 'node:path';
import { SynapseError } from '../errors.js';
import { readJsonFile } from '../json-file.js';
import { checkRegistryEntry, entryFile, type RegistryEntry } from './entry.js';
import { isEntryAlive } from './liveness.js';
import { naturalCompare } from '../text-order.js';

/** A file in the registry directory that is there but is not a readable entry. */
export interface RegistryProblem {
  file: string;
  reason: string;
}

/** What a listing found: the well-formed entries, and the files it skipped with why. */
export interface RegistryScan {
  entries: RegistryEntry[];
  problems: RegistryProblem[];
}

function isEnoent(err: unknown): boolean {
  return (err as NodeJS.ErrnoException).code === 'ENOENT';
}

/**
 * The file registry: one JSON file per running agent, written atomically. The directory is
 * shared with the original Python Synapse, so a file this parser does not accept is reported,
 * never deleted; only entries of dead agents are pruned.
 */
export class FileRegistry {
  constructor(readonly dir: string) {}

  fileFor(agentId: string): string {
    return path.join(this.dir, `${agentId}.json`);
  }

  /** temp file + rename, so readers never see half a file; in the original's conventions (`entryFile`). */
  write(entry: RegistryEntry): void {
    fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const file = this.fileFor(entry.agent_id);
    const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    fs.writeFileSync(tmp, `${JSON.stringify(entryFile(entry), null, 2)}\n`, { mode: 0o600 });
    fs.renameSync(tmp, file);
  }

  remove(agentId: string): void {
    fs.rmSync(this.fileFor(agentId), { force: true });
  }

  /** One file: null when it does not exist, a problem when it exists but is not an entry. */
  private readFile(file: string): { entry: RegistryEntry } | { problem: RegistryProblem } | null {
    let raw: unknown;
    try {
      raw = readJsonFile(file, 'registry file');
    } catch (err) {
      const reason = (err as SynapseError).details?.reason;
      return { problem: { file, reason: typeof reason === 'string' ? reason : (err as Error).message } };
    }
    if (raw === null) return null; // gone between the listing and the read: an agent exited
    const checked = checkRegistryEntry(raw);
    return checked.entry ? { entry: checked.entry } : { problem: { file, reason: checked.problem } };
  }

  /**
   * One agent's entry: null when there is no such file; a file that exists but is not an
   * entry is an error naming it, not "no such agent".
   */
  read(agentId: string): RegistryEntry | null {
    const got = this.readFile(this.fileFor(agentId));
    if (got === null) return null;
    if ('problem' in got) throw new SynapseError('corrupt_file', `registry file ${got.problem.file} is ${got.problem.reason}`, { file: got.problem.file });
    return got.entry;
  }

  /** Every well-formed entry, live or not, sorted by id; and the files skipped, with why. */
  scan(): RegistryScan {
    let names: string[];
    try {
      names = fs.readdirSync(this.dir);
    } catch (err) {
      if (isEnoent(err)) return { entries: [], problems: [] }; // no agent has run yet
      throw new SynapseError('corrupt_file', `cannot read the registry directory ${this.dir}: ${(err as Error).message}`, { file: this.dir });
    }
    const entries: RegistryEntry[] = [];
    const problems: RegistryProblem[] = [];
    for (const name of names.sort()) {
      if (!name.endsWith('.json')) continue;
      const got = this.readFile(path.join(this.dir, name));
      if (got === null) continue;
      if ('problem' in got) problems.push(got.problem);
      else entries.push(got.entry);
    }
    entries.sort((a, b) => naturalCompare(a.agent_id, b.agent_id));
    return { entries, problems };
  }

  /** Every well-formed entry, live or not. Files that are not entries are left out (see `scan`). */
  readAll(): RegistryEntry[] {
    return this.scan().entries;
  }

  /**
   * Live entries (see `isEntryAlive`: the process runs, is no zombie and is the one that
   * registered; the heartbeat, where there is one, is fresh) and the skipped files. Entries of
   * dead or silent agents, ours and the original's alike, are removed on the way (whoever
   * notices prunes).
   */
  scanLive(now?: number): RegistryScan {
    const { entries, problems } = this.scan();
    const live: RegistryEntry[] = [];
    for (const entry of entries) {
      if (isEntryAlive(entry, now)) live.push(entry);
      else this.prune(entry);
    }
    return { entries: live, problems };
  }

  /**
   * Removes a dead agent's entry and, as the original's own clean-up (`unregister`) does, the Unix
   * socket its entry names (`uds_path`, which only the original writes), so that sockets do not
   * pile up. Only a socket named after the agent is removed, never another file an entry might name.
   */
  prune(entry: RegistryEntry): void {
    this.remove(entry.agent_id);
    const uds = (entry as unknown as { uds_path?: unknown }).uds_path;
    if (typeof uds !== 'string' || path.basename(uds) !== `${entry.agent_id}.sock`) return;
    try {
      if (fs.lstatSync(uds).isSocket()) fs.rmSync(uds, { force: true });
    } catch {
      // No such socket (the original never started its UDS server, or removed it): nothing to do.
    }
  }

  listLive(now?: number): RegistryEntry[] {
    return this.scanLive(now).entries;
  }
}
