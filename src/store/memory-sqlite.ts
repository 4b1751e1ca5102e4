import type { Memory, MemoryHit, MemoryStats } from './memory-schema.js';
import type { MemoryStore } from './memory-api.js';
import type { SharedMemory } from './memory.js';

/** The SQLite shared memory behind the asynchronous interface: today's file and code, answered as Promises. */
export class SqliteMemoryStore implements MemoryStore {
  readonly backend = 'sqlite' as const;

  constructor(private readonly memory: SharedMemory) {}

  async close(): Promise<void> {
    this.memory.close();
  }
  async save(input: { key: string; content: string; tags?: string[]; author?: string | null }): Promise<{ memory: Memory; created: boolean }> {
    return this.memory.save(input);
  }
  async get(key: string): Promise<Memory> {
    return this.memory.get(key);
  }
  async keyOf(idOrKey: string): Promise<string> {
    return this.memory.keyOf(idOrKey);
  }
  async list(filter?: { tag?: string; tags?: string[]; author?: string; limit?: number }): Promise<Memory[]> {
    return this.memory.list(filter);
  }
  async search(query: string, options?: { limit?: number }): Promise<MemoryHit[]> {
    return this.memory.search(query, options);
  }
  async delete(key: string): Promise<Memory> {
    return this.memory.delete(key);
  }
  async stats(): Promise<MemoryStats> {
    return this.memory.stats();
  }
}
