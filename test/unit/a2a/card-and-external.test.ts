import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentCard } from '@a2a-js/sdk';
import { isLegacyAgentCard, parseLegacyAgentCard } from '@a2a-js/sdk/compat/v0_3/client';
import { buildA2aCard, legacyCardJson, SYNAPSE_EXTENSION_URI } from '../../../src/a2a/sdk/card.js';
import { cardUrlFor, parseCard } from '../../../src/a2a/external-client.js';
import { aliasFromName, ExternalStore, validateAlias } from '../../../src/a2a/external-store.js';
import type { RegistryEntry } from '../../../src/registry/entry.js';

const self: RegistryEntry = {
  agent_id: 'synapse-claude-8100',
  agent_type: 'claude',
  name: 'reviewer',
  role: 'code review',
  port: 8100,
  pid: 1,
  pid_starttime: null,
  working_dir: '/w',
  endpoint: 'http://127.0.0.1:8100',
  status: 'READY',
  status_updated_at: '2026-01-01T00:00:00.000Z',
  current_task_preview: null,
  task_received_at: null,
  registered_at: '2026-01-01T00:00:00.000Z',
  heartbeat_at: '2026-01-01T00:00:00.000Z',
  log_file: null,
  headless: false,
  synapse_version: '1.2.3',
};
const input = { self, displayName: 'Claude Code', description: 'Anthropic Claude Code.', peers: [] };

describe('the A2A card', () => {
  it('lists bindings in preference order, gRPC only when it listens, v0.3 last', () => {
    const without = buildA2aCard(input, { base: self.endpoint, grpc: null });
    expect(without.supportedInterfaces.map((i) => i.protocolBinding)).toEqual(['JSONRPC', 'HTTP+JSON', 'JSONRPC']);
    const withGrpc = buildA2aCard(input, { base: self.endpoint, grpc: '127.0.0.1:9100' });
    expect(withGrpc.supportedInterfaces.map((i) => `${i.protocolBinding}@${i.protocolVersion}`)).toEqual([
      'JSONRPC@1.0',
      'HTTP+JSON@1.0',
      'GRPC@1.0',
      'JSONRPC@0.3',
    ]);
    expect(withGrpc.supportedInterfaces[2]!.url).toBe('127.0.0.1:9100');
  });

  it('survives the SDK codec and carries the synapse extension and skill', () => {
    const json = AgentCard.toJSON(buildA2aCard(input, { base: self.endpoint, grpc: null })) as any;
    const back = AgentCard.fromJSON(json);
    expect(back.name).toBe('reviewer');
    expect(back.version).toBe('1.2.3');
    expect(back.capabilities).toMatchObject({ streaming: true, pushNotifications: true });
    const ext = back.capabilities!.extensions.find((e) => e.uri === SYNAPSE_EXTENSION_URI)!;
    expect(ext.params!.agent).toMatchObject({ agentId: 'synapse-claude-8100', agentType: 'claude', role: 'code review', workingDir: '/w', ptyWrapped: true });
    expect(Object.keys(ext.params!.context as object).sort()).toEqual(['availableAgents', 'identity', 'routingRules']);
    expect(back.skills[0]!.tags).toContain('claude');
  });

  it('has a v0.3 twin the SDK recognises', () => {
    const legacy = legacyCardJson(buildA2aCard(input, { base: self.endpoint, grpc: null }));
    expect(isLegacyAgentCard(legacy)).toBe(true);
    expect(parseLegacyAgentCard(legacy).supportedInterfaces[0]!.url).toBe('http://127.0.0.1:8100/a2a/v0.3/jsonrpc');
  });
});

describe('external cards', () => {
  it('finds the well-known card under the given base URL', () => {
    expect(cardUrlFor('http://127.0.0.1:9000')).toBe('http://127.0.0.1:9000/.well-known/agent-card.json');
    expect(cardUrlFor('https://h.example/agents/recipes/')).toBe('https://h.example/agents/recipes/.well-known/agent-card.json');
    expect(cardUrlFor('https://h.example/custom/card.json')).toBe('https://h.example/custom/card.json');
    expect(() => cardUrlFor('ftp://h.example')).toThrow(/http or https/);
    expect(() => cardUrlFor('not a url')).toThrow(/not a URL/);
  });

  it('accepts 1.0 and 0.3 cards and refuses anything else', () => {
    const v1 = AgentCard.toJSON(buildA2aCard(input, { base: self.endpoint, grpc: null }));
    expect(parseCard(v1, 'u').version).toBe('1.0');
    const v03 = legacyCardJson(buildA2aCard(input, { base: self.endpoint, grpc: null }));
    expect(parseCard(v03, 'u').version).toBe('0.3');
    expect(() => parseCard({ agent_id: 'x' }, 'u')).toThrow(/no name/);
    expect(() => parseCard({ name: 'x' }, 'u')).toThrow(/neither A2A 1.0/);
    expect(() => parseCard({ name: 'x', supportedInterfaces: [{ url: 'ws://x', protocolBinding: 'WEBSOCKET', protocolVersion: '1.0' }] }, 'u')).toThrow(
      /no binding Synapse speaks/,
    );
  });
});

describe('external store', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  });

  it('validates aliases and derives one from a card name', () => {
    expect(validateAlias('Planner')).toBe('planner');
    expect(() => validateAlias('../etc')).toThrow(/not valid/);
    expect(aliasFromName('Recipe Agent!')).toBe('recipe-agent');
    expect(aliasFromName('***')).toBe('agent');
  });

  it('saves 0600 files atomically, lists them sorted, and names the known ones when one is missing', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ext-store-'));
    dirs.push(dir);
    const store = new ExternalStore(path.join(dir, 'external'));
    const base = {
      url: 'http://x',
      card_url: 'http://x/.well-known/agent-card.json',
      protocol_version: '1.0' as const,
      name: 'X',
      description: '',
      headers: { authorization: 'Bearer t' },
      card: { name: 'X' },
      added_at: 'a',
      updated_at: 'a',
    };
    store.save({ ...base, alias: 'zed' });
    store.save({ ...base, alias: 'alpha' });
    expect(store.list().map((a) => a.alias)).toEqual(['alpha', 'zed']);
    expect(fs.statSync(path.join(dir, 'external', 'zed.json')).mode & 0o777).toBe(0o600);
    fs.writeFileSync(path.join(dir, 'external', 'broken.json'), '{');
    expect(store.list()).toHaveLength(2);
    expect(() => store.get('nope')).toThrow(/known: alpha, zed/);
    expect(store.remove('zed').alias).toBe('zed');
    expect(store.find('zed')).toBeNull();
  });
});
