import fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, tempHome } from '../../support/synapse.js';

/** A setting that does not parse stops the agent before it starts, naming the variable. */
describe('settings of an agent', () => {
  const t = tempHome();
  afterAll(() => t.cleanup());
  const registered = () => (fs.existsSync(t.env.SYNAPSE_REGISTRY_DIR!) ? fs.readdirSync(t.env.SYNAPSE_REGISTRY_DIR!) : []);

  it('refuses to run with a SYNAPSE_LONG_MESSAGE_THRESHOLD that is not a number (it was NaN, then the default)', async () => {
    const r = await runCli(['echo', '--headless'], { env: { ...t.env, SYNAPSE_LONG_MESSAGE_THRESHOLD: '2k' }, timeoutMs: 15_000 });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('synapse: SYNAPSE_LONG_MESSAGE_THRESHOLD must be a whole number of characters (at least 1), got "2k"\n');
    expect(registered()).toEqual([]);
  });

  it('refuses to start in the background with a SYNAPSE_REPLY_GRACE that is not a number, in this terminal', async () => {
    const r = await runCli(['start', 'echo'], { env: { ...t.env, SYNAPSE_REPLY_GRACE: '5s' }, timeoutMs: 15_000 });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('synapse: SYNAPSE_REPLY_GRACE must be a number of seconds (at least 0), got "5s"\n');
    expect(registered()).toEqual([]);
  });

  it('refuses a SYNAPSE_CORS_ORIGINS entry that is not an origin (a wildcard would open the agent to every page)', async () => {
    const r = await runCli(['echo', '--headless'], { env: { ...t.env, SYNAPSE_CORS_ORIGINS: 'https://dash.example.com,*' }, timeoutMs: 15_000 });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('synapse: SYNAPSE_CORS_ORIGINS must be a comma-separated list of origins like https://host[:port] (no path, no wildcard), got "*"\n');
    expect(registered()).toEqual([]);
  });

  it('refuses a webhook setting that is not a number instead of using the default', async () => {
    const r = await runCli(['echo', '--headless'], { env: { ...t.env, SYNAPSE_WEBHOOK_MAX_RETRIES: 'three' }, timeoutMs: 15_000 });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('synapse: SYNAPSE_WEBHOOK_MAX_RETRIES must be a whole number of retries (at least 0), got "three"\n');
  });
});
