import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SynapseError } from '../../../src/errors.js';
import { STALE_AFTER_MS } from '../../../src/registry/liveness.js';
import { agentIdOrName, agentNameMap, findLiveAgent, liveAgents } from '../../../src/registry/lookup.js';
import { FileRegistry } from '../../../src/registry/registry.js';
import { originalEntry, pythonJson } from '../../support/original-synapse.mjs';
import { deadPid, entry } from './fixtures.js';

let dir: string;
let registry: FileRegistry;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'synapse-registry-'));
  registry = new FileRegistry(path.join(dir, 'registry'));
});

afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const live = (type: string, port: number, name: string | null = null) => entry(type, port, name, { pid: process.pid });

describe('FileRegistry: absent versus corrupt', () => {
  it('reads no entry (not an error) when the directory or the file does not exist', () => {
    expect(registry.read('synapse-echo-8190')).toBeNull();
    expect(registry.scan()).toEqual({ entries: [], problems: [] });
    registry.write(live('echo', 8191));
    expect(registry.read('synapse-echo-8190')).toBeNull();
  });

  it('names a file that exists but is not JSON, or not an entry, instead of saying "no such agent"', () => {
    fs.mkdirSync(registry.dir, { recursive: true });
    fs.writeFileSync(registry.fileFor('synapse-echo-8190'), '{ half');
    fs.writeFileSync(registry.fileFor('synapse-echo-8191'), JSON.stringify({ agent_id: 'synapse-echo-8191', port: 8191 }));
    for (const id of ['synapse-echo-8190', 'synapse-echo-8191']) {
      let err: unknown;
      try {
        registry.read(id);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(SynapseError);
      expect((err as SynapseError).code).toBe('corrupt_file');
      expect((err as SynapseError).message).toContain(registry.fileFor(id));
    }
  });

  it('lists what it skipped and why, and leaves the files it cannot parse in place', () => {
    registry.write(live('echo', 8190));
    fs.writeFileSync(path.join(registry.dir, 'broken.json'), '{ not json');
    fs.writeFileSync(path.join(registry.dir, 'half-entry.json'), JSON.stringify({ agent_id: 'synapse-claude-8100', agent_type: 'claude', port: 8100 }));
    fs.writeFileSync(path.join(registry.dir, 'notes.txt'), 'not a registry file');
    const { entries, problems } = registry.scanLive();
    expect(entries.map((e) => e.agent_id)).toEqual(['synapse-echo-8190']);
    expect(problems).toEqual([
      { file: path.join(registry.dir, 'broken.json'), reason: expect.stringMatching(/^not JSON: /) },
      { file: path.join(registry.dir, 'half-entry.json'), reason: expect.stringMatching(/^not a Synapse registry entry: pid is missing/) },
    ]);
    expect(fs.readdirSync(registry.dir).sort()).toEqual(['broken.json', 'half-entry.json', 'notes.txt', 'synapse-echo-8190.json']);
  });

  it('says the directory is unreadable when it is not a directory', () => {
    fs.writeFileSync(registry.dir, 'a file where the directory should be');
    expect(() => registry.scan()).toThrowError(new RegExp(`cannot read the registry directory ${registry.dir}`));
  });
});

describe('FileRegistry: liveness prunes only dead entries', () => {
  it('prunes an entry whose pid is gone and one whose heartbeat is stale, keeps the live one', () => {
    const now = Date.now();
    registry.write(live('echo', 8190));
    registry.write(entry('echo', 8191, null, { pid: deadPid() }));
    registry.write(entry('echo', 8192, null, { pid: process.pid, heartbeat_at: new Date(now - STALE_AFTER_MS - 1).toISOString() }));
    expect(registry.listLive(now).map((e) => e.agent_id)).toEqual(['synapse-echo-8190']);
    expect(registry.readAll().map((e) => e.agent_id)).toEqual(['synapse-echo-8190']);
  });
});

describe('FileRegistry: one directory with the original Synapse', () => {
  /** A file exactly as the original's AgentRegistry.register writes it. */
  const writeOriginal = (over: Parameters<typeof originalEntry>[0]) => {
    fs.mkdirSync(registry.dir, { recursive: true });
    const raw = originalEntry(over);
    fs.writeFileSync(registry.fileFor(raw.agent_id as string), pythonJson(raw));
    return raw;
  };

  it("lists the original's live agents beside ours and prunes its dead ones", () => {
    registry.write(live('echo', 8190));
    writeOriginal({ agentType: 'claude', port: 8100, pid: process.pid, workingDir: dir, name: 'py' });
    writeOriginal({ agentType: 'gemini', port: 8110, pid: deadPid(), workingDir: dir });
    const { entries, problems } = registry.scanLive();
    expect(problems).toEqual([]);
    expect(entries.map((e) => [e.agent_id, e.name])).toEqual([
      ['synapse-claude-8100', 'py'],
      ['synapse-echo-8190', null],
    ]);
    expect(fs.existsSync(registry.fileFor('synapse-gemini-8110'))).toBe(false);
  });

  it('removes the socket a pruned original agent leaves behind, and no other file an entry names', async () => {
    const uds = path.join(dir, 'uds');
    fs.mkdirSync(uds);
    const listen = async (name: string) => {
      const server = net.createServer();
      await new Promise<void>((r) => server.listen(path.join(uds, name), r));
      return server;
    };
    const servers = [await listen('synapse-claude-8100.sock'), await listen('other.sock')];
    try {
      writeOriginal({ agentType: 'claude', port: 8100, pid: deadPid(), workingDir: dir, udsDir: uds });
      // Its socket path is a plain file: it stays.
      fs.writeFileSync(path.join(uds, 'synapse-codex-8120.sock'), 'not a socket');
      writeOriginal({ agentType: 'codex', port: 8120, pid: deadPid(), workingDir: dir, udsDir: uds });
      // Names a socket that is not its own: it stays.
      const gemini = originalEntry({ agentType: 'gemini', port: 8110, pid: deadPid(), workingDir: dir });
      fs.writeFileSync(registry.fileFor('synapse-gemini-8110'), JSON.stringify({ ...gemini, uds_path: path.join(uds, 'other.sock') }));
      expect(registry.listLive()).toEqual([]);
      expect(fs.readdirSync(uds).sort()).toEqual(['other.sock', 'synapse-codex-8120.sock']);
    } finally {
      for (const server of servers) await new Promise((r) => server.close(r));
    }
  });

  it('writes entries the original reads: its fields, timestamps in epoch seconds', () => {
    const alice = live('echo', 8190, 'alice');
    registry.write(alice);
    const raw = JSON.parse(fs.readFileSync(registry.fileFor('synapse-echo-8190'), 'utf8'));
    for (const f of ['agent_id', 'agent_type', 'port', 'status', 'pid', 'working_dir', 'endpoint', 'name']) expect(raw, f).toHaveProperty(f);
    for (const f of ['registered_at', 'status_updated_at', 'heartbeat_at']) expect(typeof raw[f], f).toBe('number');
    expect(Math.abs(raw.registered_at - Date.now() / 1000)).toBeLessThan(60);
    expect(registry.read('synapse-echo-8190')).toEqual(alice);
  });
});

describe('lookup through the environment', () => {
  it('resolves names to live ids, falls back to the name given, and never lends a stale entry', () => {
    const env = { SYNAPSE_REGISTRY_DIR: registry.dir };
    registry.write(live('claude', 8100, 'alice'));
    registry.write(entry('codex', 8120, 'stale', { pid: process.pid, heartbeat_at: new Date(Date.now() - STALE_AFTER_MS - 1000).toISOString() }));
    expect(liveAgents(env).map((e) => e.agent_id)).toEqual(['synapse-claude-8100']);
    expect(agentIdOrName('alice', env)).toBe('synapse-claude-8100');
    expect(agentIdOrName('stale', env)).toBe('stale');
    expect(findLiveAgent('stale', env)).toBeNull();
    expect(findLiveAgent('alice', env)?.pid).toBe(process.pid);
  });

  it('names agents from every well-formed entry, live or not', () => {
    const env = { SYNAPSE_REGISTRY_DIR: registry.dir };
    registry.write(entry('echo', 8190, 'gone', { pid: deadPid() }));
    registry.write(live('echo', 8191));
    expect([...agentNameMap(env)]).toEqual([['synapse-echo-8190', 'gone']]);
  });
});
