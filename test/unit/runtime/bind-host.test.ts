import { describe, expect, it } from 'vitest';
import { bindHost, endpointHost, exposureWarning } from '../../../src/runtime/bind-host.js';

describe('the bind address (issue 15 §1)', () => {
  it('is --host, else SYNAPSE_HOST, else 127.0.0.1', () => {
    expect(bindHost(undefined, {})).toBe('127.0.0.1');
    expect(bindHost(undefined, { SYNAPSE_HOST: '192.0.2.7' })).toBe('192.0.2.7');
    expect(bindHost('127.0.0.2', { SYNAPSE_HOST: '192.0.2.7' })).toBe('127.0.0.2');
  });

  it('registers a wildcard bind on loopback and an IPv6 address in brackets', () => {
    expect([endpointHost('0.0.0.0'), endpointHost('::'), endpointHost('fe80::1'), endpointHost('192.0.2.7')]).toEqual([
      '127.0.0.1',
      '127.0.0.1',
      '[fe80::1]',
      '192.0.2.7',
    ]);
  });

  it('warns for a bind beyond loopback while auth is off, and only then', () => {
    for (const host of ['127.0.0.1', 'localhost', '::1', '127.0.0.2']) expect(exposureWarning(host, {}), host).toBeNull();
    for (const host of ['0.0.0.0', '::', '192.0.2.7']) expect(exposureWarning(host, {}), host).toMatch(/exposes this agent .* SYNAPSE_AUTH_ENABLED/);
    expect(exposureWarning('0.0.0.0', { SYNAPSE_AUTH_ENABLED: 'true' })).toBeNull();
  });
});
