import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ExternalStore, type ExternalAgent } from '../../../src/a2a/external-store.js';

describe('the external-agent store tells a missing file from a corrupt one', () => {
  let dir: string;
  let store: ExternalStore;
  const agent: ExternalAgent = {
    alias: 'peer',
    url: 'http://127.0.0.1:9999',
    card_url: 'http://127.0.0.1:9999/.well-known/agent-card.json',
    protocol_version: '1.0',
    name: 'Peer',
    description: 'a peer',
    headers: {},
    card: { name: 'Peer' },
    added_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
  };

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'synapse-external-'));
    store = new ExternalStore(dir);
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('an alias with no file is "no external agent"', () => {
    expect(() => store.get('peer')).toThrow(/no external agent "peer"/);
  });

  it('a corrupt file says that file is corrupt, not that the agent is unknown', () => {
    fs.writeFileSync(path.join(dir, 'peer.json'), '{ not json');
    expect(() => store.get('peer')).toThrow(`file ${path.join(dir, 'peer.json')} is not JSON`);
    fs.writeFileSync(path.join(dir, 'peer.json'), '{"alias": 3}');
    expect(() => store.get('peer')).toThrow(/peer\.json is not an external agent record/);
  });

  it('a listing keeps the readable agents and names each corrupt file with why', () => {
    store.save({ ...agent, alias: 'good' });
    fs.writeFileSync(path.join(dir, 'bad.json'), '[');
    const { agents, problems } = store.scan();
    expect(agents.map((a) => a.alias)).toEqual(['good']);
    expect(problems).toEqual([{ file: path.join(dir, 'bad.json'), error: expect.stringContaining('bad.json is not JSON') as string }]);
    expect(store.list().map((a) => a.alias)).toEqual(['good']);
  });

  it('a missing store directory lists nothing', () => {
    expect(new ExternalStore(path.join(dir, 'nope')).scan()).toEqual({ agents: [], problems: [] });
  });
});
