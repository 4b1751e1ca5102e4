import { afterEach, describe, expect, it } from 'vitest';
import { runCli, tempHome } from '../../support/synapse.js';

const homes: Array<ReturnType<typeof tempHome>> = [];
afterEach(() => {
  for (const h of homes.splice(0)) h.cleanup();
});

describe('synapse auth generate', () => {
  it('prints a new random key each time (--json: {key})', async () => {
    const h = tempHome();
    homes.push(h);
    const a = await runCli(['auth', 'generate'], { env: h.env });
    const b = await runCli(['auth', 'generate', '--json'], { env: h.env });
    expect([a.code, b.code], a.stderr + b.stderr).toEqual([0, 0]);
    const first = a.stdout.trim();
    const second = (JSON.parse(b.stdout) as { key: string }).key;
    expect(first).toMatch(/^synapse_[A-Za-z0-9_-]{43}$/);
    expect(second).toMatch(/^synapse_[A-Za-z0-9_-]{43}$/);
    expect(first).not.toBe(second);
  });

  it('has a --help with an example', async () => {
    const h = tempHome();
    homes.push(h);
    const help = await runCli(['auth', 'generate', '--help'], { env: h.env });
    expect(help.stdout).toContain('synapse auth generate');
  });
});

describe('synapse config show hides keys', () => {
  it('says a key is set without printing it', async () => {
    const h = tempHome();
    homes.push(h);
    const env = { ...h.env, SYNAPSE_API_KEYS: 'synapse_secret-one,synapse_secret-two', SYNAPSE_ADMIN_KEY: 'synapse_admin-secret' };
    const json = await runCli(['config', 'show', '--json'], { env });
    const table = await runCli(['config', 'show'], { env });
    expect(json.code, json.stderr).toBe(0);
    const shown = JSON.parse(json.stdout) as Record<string, { value: unknown }>;
    expect([shown['env.SYNAPSE_API_KEYS']?.value, shown['env.SYNAPSE_ADMIN_KEY']?.value]).toEqual(['(set, hidden)', '(set, hidden)']);
    expect(json.stdout + table.stdout).not.toMatch(/synapse_secret|admin-secret/);
  });
});
