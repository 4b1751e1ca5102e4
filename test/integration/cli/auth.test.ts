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

describe('synapse auth setup', () => {
  it('prints an API key and an admin key, different, with the variables and a curl line that use them (--json too)', async () => {
    const h = tempHome();
    homes.push(h);
    const text = await runCli(['auth', 'setup'], { env: h.env });
    const json = await runCli(['auth', 'setup', '--json'], { env: h.env });
    expect([text.code, json.code], text.stderr + json.stderr).toEqual([0, 0]);
    const api = /API key: +(synapse_\S+)/.exec(text.stdout)?.[1];
    const admin = /Admin key: +(synapse_\S+)/.exec(text.stdout)?.[1];
    expect(api).toMatch(/^synapse_[A-Za-z0-9_-]{43}$/);
    expect(admin).toMatch(/^synapse_[A-Za-z0-9_-]{43}$/);
    expect(api).not.toBe(admin);
    expect(text.stdout).toContain(`export SYNAPSE_API_KEYS=${api}`);
    expect(text.stdout).toContain(`export SYNAPSE_ADMIN_KEY=${admin}`);
    expect(text.stdout).toContain(`curl -H 'X-API-Key: ${api}'`);
    const parsed = JSON.parse(json.stdout) as { api_key: string; admin_key: string; env: Record<string, string> };
    expect(parsed.env).toEqual({ SYNAPSE_AUTH_ENABLED: 'true', SYNAPSE_API_KEYS: parsed.api_key, SYNAPSE_ADMIN_KEY: parsed.admin_key });
    expect(parsed.api_key).not.toBe(api);
    // Nothing is stored: the temporary home holds no key.
    const { spawnSync } = await import('node:child_process');
    const found = spawnSync('grep', ['-rl', parsed.api_key, h.home], { encoding: 'utf8' });
    expect([found.status, found.stdout]).toEqual([1, '']);
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
