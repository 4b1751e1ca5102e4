import { clockFrom } from '../../../src/clock.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MEMORY_MIGRATIONS, SharedMemory, memoryNotice, normalizeTags } from '../../../src/store/memory.js';
import { openDatabase } from '../../../src/store/sqlite.js';

let dir: string;
let now: number;
let mem: SharedMemory;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mem-unit-'));
  now = Date.parse('2026-01-01T00:00:00Z');
  mem = SharedMemory.forProject(dir, { clock: clockFrom(() => (now += 1000)) });
});

afterEach(() => {
  mem.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('shared memory', () => {
  it('upserts by key and keeps the first creation time', () => {
    const first = mem.save({ key: 'db', content: 'postgres 16', tags: ['Infra', 'db', 'infra'], author: 'alice' });
    expect(first.created).toBe(true);
    expect(first.memory.tags).toEqual(['infra', 'db']);
    const second = mem.save({ key: 'db', content: 'postgres 17', author: 'bob' });
    expect(second.created).toBe(false);
    expect(second.memory).toMatchObject({ content: 'postgres 17', author: 'bob', created_at: first.memory.created_at });
    expect(mem.list()).toHaveLength(1);
  });

  it('lists by tag and author, newest first', () => {
    mem.save({ key: 'a', content: 'x', tags: ['api'], author: 'alice' });
    mem.save({ key: 'b', content: 'y', tags: ['api', 'db'], author: 'bob' });
    mem.save({ key: 'c', content: 'z', author: 'alice' });
    expect(mem.list().map((m) => m.key)).toEqual(['c', 'b', 'a']);
    expect(mem.list({ tag: 'API' }).map((m) => m.key)).toEqual(['b', 'a']);
    expect(mem.list({ author: 'alice' }).map((m) => m.key)).toEqual(['c', 'a']);
  });

  it('ranks search hits: key over tags over content, more occurrences higher', () => {
    mem.save({ key: 'deploy-notes', content: 'we ship with docker compose', tags: ['ops'] });
    mem.save({ key: 'misc', content: 'remember to deploy on fridays, never', tags: [] });
    mem.save({ key: 'release', content: 'see runbook', tags: ['deploy'] });
    mem.save({ key: 'unrelated', content: 'nothing to see here', tags: ['x'] });
    mem.save({ key: 'more-words', content: 'deploy deploy deploy: deploying is our daily routine', tags: [] });
    const hits = mem.search('deploy');
    expect(hits.map((h) => h.key)).toEqual(['deploy-notes', 'release', 'more-words', 'misc']);
    expect(hits[0]!.score).toBeGreaterThan(hits[3]!.score);
    // Any word may match; notes matching more of them come first. Prefixes match too.
    expect(
      mem
        .search('docker runbook')
        .map((h) => h.key)
        .sort(),
    ).toEqual(['deploy-notes', 'release']);
    expect(mem.search('routin')[0]!.key).toBe('more-words');
  });

  it('treats FTS syntax in a query as plain words', () => {
    mem.save({ key: 'k', content: 'alpha beta' });
    expect(mem.search('alpha" OR -beta: NEAR(*').map((h) => h.key)).toEqual(['k']);
    expect(() => mem.search('  "" ')).toThrow(/at least one word/);
  });

  it('keeps the index in step with updates and deletes', () => {
    mem.save({ key: 'k', content: 'old words' });
    mem.save({ key: 'k', content: 'new words' });
    expect(mem.search('old')).toEqual([]);
    expect(mem.search('new').map((h) => h.key)).toEqual(['k']);
    expect(mem.delete('k').content).toBe('new words');
    expect(mem.search('new')).toEqual([]);
  });

  it('says which keys are similar when a key is unknown', () => {
    mem.save({ key: 'auth-flow', content: 'x' });
    expect(() => mem.get('auth')).toThrow(/similar keys: auth-flow/);
    expect(() => mem.delete('nope')).toThrow(/no memory with key 'nope'/);
  });

  it('validates keys, content and tags', () => {
    expect(() => mem.save({ key: ' ', content: 'x' })).toThrow(/key must not be empty/);
    expect(() => mem.save({ key: 'a\u0007', content: 'x' })).toThrow(/control/);
    expect(() => mem.save({ key: 'a', content: '  ' })).toThrow(/content must not be empty/);
    expect(normalizeTags(['a,b', ' C '])).toEqual(['a', 'b', 'c']);
    expect(() => normalizeTags(['x'.repeat(51)])).toThrow(/invalid tag/);
  });

  it('counts notes, authors and tags', () => {
    mem.save({ key: 'a', content: 'héllo', tags: ['t1', 't2'], author: 'alice' });
    mem.save({ key: 'b', content: 'x', tags: ['t1'] });
    expect(mem.stats()).toMatchObject({ count: 2, total_bytes: 7, authors: { alice: 1, '(unknown)': 1 }, tags: { t1: 2, t2: 1 } });
  });

  it('builds a one-line notice', () => {
    expect(memoryNotice('my key', 'line one\nline two', 'alice')).toBe(
      '[shared memory] alice saved "my key": line one line two (read it: synapse memory show "my key")',
    );
  });
});

describe('memory schema', () => {
  it('upgrades a v1 file and makes its existing notes searchable', () => {
    const file = path.join(dir, 'v1.db');
    const v1 = openDatabase(file, MEMORY_MIGRATIONS.slice(0, 1));
    v1.prepare(
      `INSERT INTO memories (key, content, tags, author, created_at, updated_at) VALUES ('legacy', 'written before search existed', '["old"]', 'alice', 'x', 'x')`,
    ).run();
    v1.close();
    const m = new SharedMemory(file);
    expect(m.schemaVersion()).toBe(2);
    expect(m.search('search').map((h) => h.key)).toEqual(['legacy']);
    expect(m.search('old').map((h) => h.key)).toEqual(['legacy']);
    m.close();
  });

  it('migrates an empty file', () => {
    const file = path.join(dir, 'empty.db');
    fs.writeFileSync(file, '');
    const m = new SharedMemory(file);
    expect(m.schemaVersion()).toBe(2);
    m.close();
  });
});
