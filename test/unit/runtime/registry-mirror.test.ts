import { describe, expect, it } from 'vitest';
import { remoteReach } from '../../../src/runtime/registry-mirror.js';

describe('the endpoint an agent registers for other hosts (issue 22 §3)', () => {
  it('keeps an advertised or specific address, and marks a loopback one nobody advertised unreachable', () => {
    expect(remoteReach('http://box1.lan:8100', { bind: '0.0.0.0', host: 'box1', advertised: true })).toEqual({
      endpoint: 'http://box1.lan:8100',
      reachable: true,
    });
    expect(remoteReach('https://192.168.1.20:8100', { bind: '192.168.1.20', host: 'box1', advertised: false })).toEqual({
      endpoint: 'https://192.168.1.20:8100',
      reachable: true,
    });
    expect(remoteReach('http://127.0.0.1:8100', { bind: '127.0.0.1', host: 'box1', advertised: false })).toEqual({
      endpoint: 'http://127.0.0.1:8100',
      reachable: false,
    });
  });

  it('gives a wildcard bind without an advertised address the host name', () => {
    expect(remoteReach('http://127.0.0.1:8100', { bind: '0.0.0.0', host: 'box1', advertised: false })).toEqual({
      endpoint: 'http://box1:8100',
      reachable: true,
    });
  });
});
