import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { clockFrom } from '../../../src/clock.js';
import { secretRedactor } from '../../../src/redact.js';
import { openMemory, type MemoryStore } from '../../../src/store/memory-store.js';
import { postgresContract, sqliteContract } from '../../support/pg-db.js';

/** The shared-memory contract (issue 22): the same cases on SQLite (FTS5) and PostgreSQL (tsvector). */

for (const backend of [sqliteContract('memory'), postgresContract('memory', 'synapse_memory', ['memory_notes'], 'RESTART IDENTITY')]) {
  describe.skipIf(backend.skip !== '')(`shared memory contract on ${backend.name}${backend.skip ? ` (SKIPPED: ${backend.skip})` : ''}`, () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    let memory: MemoryStore;
    const open = () => openMemory(backend.dir(), { env: {}, redact: secretRedactor({}), clock: clockFrom(() => now), target: backend.target() });

    beforeAll(() => backend.setup());
    afterAll(() => backend.teardown());
    beforeEach(async () => {
      now = Date.parse('2026-01-01T00:00:00Z');
      await backend.reset();
      memory = await open();
    });
    afterEach(() => memory.close());

    it('saves, replaces and reads a note by key or id, with normalised tags and redacted secrets', async () => {
      expect(memory.backend).toBe(backend.name);
      const first = await memory.save({ key: 'db-choice', content: '  use postgres  ', tags: ['DB', 'infra,db'], author: 'alice' });
      expect(first.created).toBe(true);
      expect(first.memory).toMatchObject({
        key: 'db-choice',
        content: 'use postgres',
        tags: ['db', 'infra'],
        author: 'alice',
        created_at: '2026-01-01T00:00:00.000Z',
      });
      now += 60_000;
      const second = await memory.save({ key: 'db-choice', content: 'use postgres 15, password=hunter2hunter2', author: 'bob' });
      expect(second.created).toBe(false);
      expect(second.memory).toMatchObject({ id: first.memory.id, content: 'use postgres 15, password=[REDACTED:secret]', tags: [], author: 'bob' });
      expect(second.memory.updated_at).toBe('2026-01-01T00:01:00.000Z');
      expect(await memory.get('db-choice')).toEqual(second.memory);
      expect(await memory.keyOf(String(first.memory.id))).toBe('db-choice');
      expect(await memory.keyOf('db-choice')).toBe('db-choice');
      expect(await memory.keyOf('999')).toBe('999');
    });

    it('refuses bad input and names similar keys when one is missing', async () => {
      await expect(memory.save({ key: ' ', content: 'x' })).rejects.toMatchObject({ code: 'usage' });
      await expect(memory.save({ key: 'k', content: '  ' })).rejects.toMatchObject({ code: 'usage' });
      await expect(memory.save({ key: 'a\u0007b', content: 'x' })).rejects.toMatchObject({ code: 'invalid_input' });
      await memory.save({ key: 'api-design', content: 'x' });
      await expect(memory.get('design')).rejects.toMatchObject({ code: 'not_found', message: expect.stringContaining('similar keys: api-design') });
      await expect(memory.delete('nothing')).rejects.toMatchObject({ code: 'not_found' });
    });

    it('lists newest first, filtered by tag, any of several tags and author; deletes', async () => {
      await memory.save({ key: 'one', content: 'first', tags: ['a'], author: 'alice' });
      now += 1000;
      await memory.save({ key: 'two', content: 'second', tags: ['b'], author: 'bob' });
      now += 1000;
      await memory.save({ key: 'three', content: 'third', tags: ['a', 'c'], author: 'alice' });
      expect((await memory.list()).map((m) => m.key)).toEqual(['three', 'two', 'one']);
      expect((await memory.list({ tag: 'A' })).map((m) => m.key)).toEqual(['three', 'one']);
      expect((await memory.list({ tags: ['b', 'c'] })).map((m) => m.key)).toEqual(['three', 'two']);
      expect((await memory.list({ author: 'bob' })).map((m) => m.key)).toEqual(['two']);
      expect((await memory.list({ limit: 1 })).map((m) => m.key)).toEqual(['three']);
      expect((await memory.delete('two')).key).toBe('two');
      expect((await memory.list()).map((m) => m.key)).toEqual(['three', 'one']);
    });

    it('searches key, tags and content by word and prefix, key matches first, operators in the query harmless', async () => {
      await memory.save({ key: 'deploy-notes', content: 'we ship on fridays', tags: ['ops'] });
      now += 1000;
      await memory.save({ key: 'style', content: 'deployment happens through the pipeline' });
      now += 1000;
      await memory.save({ key: 'unrelated', content: 'nothing here' });
      const hits = await memory.search('deploy');
      expect(hits.map((h) => h.key)).toEqual(['deploy-notes', 'style']);
      expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);
      expect((await memory.search('OPS')).map((h) => h.key)).toEqual(['deploy-notes']);
      expect((await memory.search('"fri* AND (NEAR')).map((h) => h.key)).toEqual(['deploy-notes']);
      expect(await memory.search('zzz')).toEqual([]);
      await expect(memory.search('  !!  ')).rejects.toMatchObject({ code: 'usage' });
    });

    it('counts notes, bytes, authors and tags', async () => {
      await memory.save({ key: 'a', content: 'héllo', tags: ['x', 'y'], author: 'alice' });
      await memory.save({ key: 'b', content: 'abc', tags: ['x'] });
      const s = await memory.stats();
      expect(s).toMatchObject({ count: 2, total_bytes: 9, authors: { alice: 1, '(unknown)': 1 }, tags: { x: 2, y: 1 } });
      expect(s.oldest).toBe('2026-01-01T00:00:00.000Z');
    });

    it('leaves exactly one note when several connections save one key at once', async () => {
      const stores = await Promise.all(Array.from({ length: 4 }, () => open()));
      try {
        const results = await Promise.all(stores.flatMap((m, i) => [0, 1, 2].map((k) => m.save({ key: 'shared', content: `from ${i}-${k}` }))));
        expect(results.filter((r) => r.created)).toHaveLength(1);
        expect(await memory.list()).toHaveLength(1);
        expect((await memory.stats()).count).toBe(1);
      } finally {
        await Promise.all(stores.map((m) => m.close()));
      }
    });
  });
}
