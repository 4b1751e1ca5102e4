import type { Memory, MemoryHit, MemoryStats } from './memory-schema.js';

/**
 * The project's shared memory, whichever backend holds it (issue 22): SQLite (`.synapse/memory.db`,
 * FTS5 with BM25) or PostgreSQL (a `tsvector` index with `ts_rank`). Both pass one contract suite
 * (test/contract/store); a save is one upsert, so two agents saving one key leave exactly one
 * note. Search scores are each backend's own (higher is better), not comparable between them.
 */
export interface MemoryStore {
  readonly backend: 'sqlite' | 'postgres';
  close(): Promise<void>;
  save(input: { key: string; content: string; tags?: string[]; author?: string | null }): Promise<{ memory: Memory; created: boolean }>;
  get(key: string): Promise<Memory>;
  keyOf(idOrKey: string): Promise<string>;
  list(filter?: { tag?: string; tags?: string[]; author?: string; limit?: number }): Promise<Memory[]>;
  search(query: string, options?: { limit?: number }): Promise<MemoryHit[]>;
  delete(key: string): Promise<Memory>;
  stats(): Promise<MemoryStats>;
}
