import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { envVarSpec } from '../../../src/config/env-vars.js';
import { SettingsFileSchema } from '../../../src/config/schema.js';
import { withDocTables } from '../../../src/config/settings-doc.js';
import { ROOT } from '../../support/synapse.js';

const GUIDE = path.join(ROOT, 'guides', 'settings.md');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sourceFiles(p) : /\.(ts|js|mjs)$/.test(e.name) ? [p] : [];
  });
}

/** Names in the code that look like variables but are constants of the A2A wire format. */
const NOT_VARIABLES = new Set(['SYNAPSE_EXTENSION_URI', 'SYNAPSE_METADATA_KEY', 'SYNAPSE_X']);

describe('guides/settings.md is generated from the schema', () => {
  it('its tables are what the schema gives (run node scripts/gen-settings-doc.mjs after npm run build)', () => {
    const guide = fs.readFileSync(GUIDE, 'utf8');
    expect(guide).toBe(withDocTables(guide));
  });

  it('every SYNAPSE_* variable the code reads is in the schema and documented in settings.md', () => {
    const guide = fs.readFileSync(GUIDE, 'utf8');
    const found = new Set<string>();
    for (const file of [...sourceFiles(path.join(ROOT, 'src')), path.join(ROOT, 'bin', 'synapse.js')])
      for (const m of fs.readFileSync(file, 'utf8').matchAll(/\bSYNAPSE_[A-Z0-9_]+/g)) found.add(m[0]);
    const variables = [...found].filter((v) => !NOT_VARIABLES.has(v));
    expect(variables.length).toBeGreaterThan(25);
    const shown = (v: string) => (v.startsWith('SYNAPSE_PORT_RANGE_') ? 'SYNAPSE_PORT_RANGE_<TYPE>' : v);
    expect(variables.filter((v) => !guide.includes(`\`${shown(v)}\``))).toEqual([]);
    const keyVars = ['SYNAPSE_APPROVAL_MODE', 'SYNAPSE_A2A_FLOW', 'SYNAPSE_LIST_COLUMNS'];
    expect(variables.filter((v) => !envVarSpec(v.startsWith('SYNAPSE_PORT_RANGE_') ? 'SYNAPSE_PORT_RANGE_X' : v) && !keyVars.includes(v))).toEqual([]);
  });

  it('the JSON Schema the build emits (checked at run time without TypeBox) is the TypeBox schema', () => {
    const emitted = JSON.parse(fs.readFileSync(path.join(ROOT, 'dist', 'config', 'schema.generated.json'), 'utf8'));
    expect(emitted.SettingsFileSchema).toEqual(JSON.parse(JSON.stringify(SettingsFileSchema)));
  });
});
