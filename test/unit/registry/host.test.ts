import { describe, expect, it } from 'vitest';
import { hostName, qualifyIds, type HostedEntry } from '../../../src/registry/host.js';
import { identityMismatch, normalizeRemote } from '../../../src/registry/project-identity.js';
import { resolveTarget } from '../../../src/registry/targets.js';
import { entry } from './fixtures.js';

const at = (host: string, remote: boolean, port: number): HostedEntry => ({ ...entry('echo', port), host, remote });

describe('host names and ids across hosts (issue 22 §2)', () => {
  it('SYNAPSE_HOST_NAME names this host; unset, the machine does', () => {
    expect(hostName({ SYNAPSE_HOST_NAME: 'ci-runner-7' })).toBe('ci-runner-7');
    expect(hostName({})).not.toBe('');
  });

  it('qualifies a remote id with @host only when another listed agent has the same id', () => {
    const local = [at('a', false, 8190)];
    const remote = [at('b', true, 8190), at('b', true, 8191)];
    expect(qualifyIds(local, remote).map((e) => e.agent_id)).toEqual(['synapse-echo-8190@b', 'synapse-echo-8191']);
  });

  it('resolves a qualified id, and says which host each candidate of an ambiguous type-port is on', () => {
    const local = [at('a', false, 8190)];
    const all = [...local, ...qualifyIds(local, [at('b', true, 8190)])];
    expect(resolveTarget(all, 'synapse-echo-8190@b').host).toBe('b');
    expect(resolveTarget(all, 'synapse-echo-8190').host).toBe('a');
    expect(() => resolveTarget(all, 'echo-8190')).toThrow(/synapse-echo-8190@b on host b/);
  });
});

describe('project identity across hosts (issue 22 §3)', () => {
  it('normalises the spellings of one remote to one key', () => {
    const key = 'github.com/team/app';
    for (const url of ['git@github.com:team/app.git', 'ssh://git@github.com/team/app', 'https://github.com/team/app.git', 'https://user@GitHub.com/team/app/'])
      expect(normalizeRemote(url)).toBe(key);
  });

  it('matches the same remote and branch; says what differs otherwise; unknown never matches', () => {
    const main = { remote: 'github.com/team/app', branch: 'main' };
    expect(identityMismatch(main, main)).toBeNull();
    expect(identityMismatch(main, { ...main, branch: 'dev' })).toMatch(/branch dev/);
    expect(identityMismatch(main, { remote: 'github.com/other/app', branch: 'main' })).toMatch(/another repository/);
    expect(identityMismatch({ remote: null, branch: null }, main)).toMatch(/no git remote/);
  });
});
