import fs from 'node:fs';
import { describe, expect, it } from 'vitest';

/** guides/original-parity.md's checklist is what the build has (scripts/parity.mjs reads dist/). */
describe('guides/original-parity.md', () => {
  it('its checklist of the original commands and variables is the build (run node scripts/parity.mjs --write after npm run build)', async () => {
    const { withChecklist } = await import('../../../scripts/parity.mjs');
    const guide = fs.readFileSync(new URL('../../../guides/original-parity.md', import.meta.url), 'utf8');
    expect(guide).toBe(withChecklist(guide));
    expect(guide).toMatch(/Commands: \d+ of 160 present\. Variables: \d+ of 37 present\./);
  });
});
