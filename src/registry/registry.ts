import fs from 'node:fs';
import path from 'node:path';
import { parseRegistryEntry, type RegistryEntry } from './entry.js';
import { isEntryAlive } from './liveness.js';

/** The file registry: one JSON file per running agent, written atomically. */
export class FileRegistry {
  constructor(readonly dir: string) {}

  fileFor(agentId: string): string {
    return path.join(this.dir, `${agentId}.json`);
  }

  /** temp file + rename, so readers never see half a file. */
  write(entry: RegistryEntry): void {
    fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const file = this.fileFor(entry.agent_id);
    const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    fs.writeFileSync(tmp, `${JSON.stringify(entry, null, 2)}\n`, { mode: 0o600 });
    fs.renameSync(tmp, file);
  }

  remove(agentId: string): void {
    fs.rmSync(this.fileFor(agentId), { force: true });
  }

  read(agentId: string): RegistryEntry | null {
    try {
      return parseRegistryEntry(JSON.parse(fs.readFileSync(this.fileFor(agentId), 'utf8')));
    } catch {
      return null;
    }
  }

  /** Every well-formed entry, live or not. Unreadable files are skipped. */
  readAll(): RegistryEntry[] {
    let names: string[];
    try {
      names = fs.readdirSync(this.dir);
    } catch {
      return [];
    }
    const entries: RegistryEntry[] = [];
    for (const name of names) {
      if (!name.endsWith('.json')) continue;
      const entry = this.read(name.slice(0, -'.json'.length));
      if (entry) entries.push(entry);
    }
    return entries.sort((a, b) => a.agent_id.localeCompare(b.agent_id, 'en', { numeric: true }));
  }

  /** Live entries; entries of dead processes are removed on the way (whoever notices prunes). */
  listLive(): RegistryEntry[] {
    const live: RegistryEntry[] = [];
    for (const entry of this.readAll()) {
      if (isEntryAlive(entry)) live.push(entry);
      else this.remove(entry.agent_id);
    }
    return live;
  }
}
