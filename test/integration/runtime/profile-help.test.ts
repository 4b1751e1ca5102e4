import { afterAll, describe, expect, it } from 'vitest';
import { listProfiles, profileNames } from '../../../src/profiles/index.js';
import { runCli, tempHome } from '../../support/synapse.js';

/** `<profile>`'s help is generated from the shipped profiles, so it cannot fall behind them. */
describe('<profile> in the help', () => {
  const t = tempHome();
  afterAll(() => t.cleanup());

  it.each([
    ['start', '--help'],
    ['help', 'start'],
    ['claude', '--help'],
  ])('synapse %s %s names every shipped profile with its aliases', async (...args) => {
    const r = await runCli(args, { env: t.env });
    expect(r.code, r.stderr).toBe(0);
    // Commander wraps long descriptions to the terminal width.
    const help = r.stdout.replace(/\s+/g, ' ');
    expect(help).toContain(` profile which CLI to wrap: ${profileNames()} cliArgs `);
    for (const p of listProfiles()) expect(help).toContain(p.aliases.length ? `${p.id} (${p.aliases.join(', ')})` : p.id);
  });
});
