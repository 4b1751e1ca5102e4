import { describe, expect, it } from 'vitest';
import { resolveSender } from '../../../src/registry/sender.js';
import { entry } from './fixtures.js';

describe('resolveSender', () => {
  const agents = [entry('claude', 8100, 'alice'), entry('echo', 8190, 'twin'), entry('echo', 8191, 'twin')];

  it('takes --from before SYNAPSE_AGENT_ID, resolved like a target', () => {
    const s = resolveSender(agents, { from: 'alice', env: { SYNAPSE_AGENT_ID: 'synapse-echo-8190' } });
    expect(s).toMatchObject({ id: 'synapse-claude-8100', source: 'flag', warning: null });
    expect(s.entry?.agent_id).toBe('synapse-claude-8100');
    expect(resolveSender(agents, { env: { SYNAPSE_AGENT_ID: 'synapse-echo-8190' } })).toMatchObject({ id: 'synapse-echo-8190', source: 'env', warning: null });
  });

  it('warns when --from or SYNAPSE_AGENT_ID names no live agent, and keeps the name as the sender id', () => {
    const flag = resolveSender(agents, { from: 'ghost', env: {} });
    expect(flag).toMatchObject({ entry: null, id: 'ghost', source: 'flag' });
    expect(flag.warning).toContain('--from "ghost" names no live agent');
    const env = resolveSender(agents, { env: { SYNAPSE_AGENT_ID: 'synapse-echo-1' } });
    expect(env).toMatchObject({ entry: null, id: 'synapse-echo-1', source: 'env' });
    expect(env.warning).toContain('SYNAPSE_AGENT_ID "synapse-echo-1" names no live agent');
  });

  it('refuses an ambiguous --from instead of taking the first match', () => {
    expect(() => resolveSender(agents, { from: 'twin', env: {} })).toThrowError(/several agents are named "twin"/);
  });

  it('finds the agent among the ancestors, and nobody without one', () => {
    const me = entry('echo', 8192, null, { pid: process.pid });
    expect(resolveSender([...agents, me], { env: {}, pid: process.pid })).toMatchObject({ id: me.agent_id, source: 'ancestry', warning: null });
    expect(resolveSender(agents, { env: {}, pid: process.pid })).toEqual({ entry: null, id: null, source: 'none', warning: null });
  });
});

describe('resolveSender by ancestry where there is no /proc (macOS)', () => {
  it('walks real parents with `ps` when /proc is hidden, as it does with /proc', async () => {
    const { spawn } = await import('node:child_process');
    const { parentReader, procParent } = await import('../../../src/registry/ancestry.js');
    // A real grandchild: this process -> sh -> sleep. The agent is this process.
    const sh = spawn('sh', ['-c', 'sleep 30 & echo $!; wait'], { stdio: ['ignore', 'pipe', 'ignore'] });
    let grandchild = 0;
    try {
      grandchild = await new Promise<number>((resolve) => sh.stdout.once('data', (d: Buffer) => resolve(Number(String(d).trim()))));
      const me = entry('echo', 8193, null, { pid: process.pid });
      const seen: number[] = [];
      const noProc = parentReader(false);
      expect(noProc).not.toBe(procParent);
      const viaPs = resolveSender([me], {
        env: {},
        pid: grandchild,
        parentOf: (pid) => {
          seen.push(pid);
          return noProc(pid);
        },
      });
      expect(viaPs).toMatchObject({ id: me.agent_id, source: 'ancestry' });
      expect(seen).toEqual([grandchild, sh.pid]);
      // The same answer as /proc gives, step by step.
      expect(noProc(grandchild)).toBe(procParent(grandchild));
      expect(noProc(sh.pid!)).toBe(process.pid);
      // A pid that is gone has no parent either way.
      expect(noProc(2 ** 22 + 7)).toBeNull();
    } finally {
      if (grandchild) process.kill(grandchild, 'SIGKILL');
      sh.kill('SIGKILL');
    }
  });
});
