import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { cleanupAll, getJson, startHeadless, tempHome } from '../../support/synapse.js';

/** Issue 20 §1: the resume flags per profile come from settings (`resume_flags`), as the original. */
const t = tempHome();
afterEach(cleanupAll);
afterAll(() => t.cleanup());

const bootstraps = async (endpoint: string) => ((await getJson(`${endpoint}/tasks`)).body as any[]).filter((x) => x.metadata.kind === 'bootstrap');

describe('resume_flags in settings', () => {
  it("a flag named in the user's resume_flags.echo skips the start-up instruction; the profile's own list is replaced", async () => {
    const file = path.join(t.env.SYNAPSE_HOME ?? path.join(t.home, '.synapse'), 'settings.json');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, JSON.stringify({ resume_flags: { echo: ['--pick-up'] } }));
    const custom = await startHeadless('echo', { env: t.env, args: ['--', '--pick-up'] });
    expect(await bootstraps(custom.endpoint)).toHaveLength(0);
    const valueForm = await startHeadless('echo', { env: t.env, args: ['--', '--pick-up=yesterday'] });
    expect(await bootstraps(valueForm.endpoint)).toHaveLength(0);
    // `--continue` is the echo profile's own resume flag, no longer one once the settings name the list.
    const replaced = await startHeadless('echo', { env: t.env, args: ['--', '--continue'] });
    expect(await bootstraps(replaced.endpoint)).toHaveLength(1);
  });
});
