import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyzeTask } from '../../../src/cli/mcp/analyze-task.js';
import { loadSuggestConfig, suggestConfigFile } from '../../../src/config/suggest.js';

/** analyze_task's rules, with the shipped templates/synapse/suggest.yaml. */
const shipped = await loadSuggestConfig(suggestConfigFile(fs.mkdtempSync(path.join(os.tmpdir(), 'synapse-suggest-')), { HOME: os.tmpdir() }));

describe('analyze_task', () => {
  it('a small task with its test fires nothing: one agent', () => {
    const a = analyzeTask(shipped, { prompt: 'fix the typo in the header', files: ['src/header.ts', 'test/header.test.ts'] });
    expect(a).toMatchObject({ split: false, fired: [], team: [] });
    expect(a.summary).toMatch(/no trigger/);
  });

  it('many files in several directories: an architect, one developer per directory (at most 4), a reviewer', () => {
    const files = ['a', 'b', 'c', 'd', 'e'].flatMap((d) => [`${d}/one.ts`, `${d}/two.test.ts`]);
    const a = analyzeTask(shipped, { prompt: 'implement the feature', files });
    expect(a.fired.map((f) => f.trigger)).toEqual(['file_count', 'directories']);
    expect(a.team.map((m) => m.name)).toEqual(['architect', 'developer-a', 'developer-b', 'developer-c', 'developer-d', 'reviewer']);
    expect(a.team[1]).toMatchObject({
      profile: 'codex',
      task: 'Implement the changes in a',
      start: 'synapse start codex --name developer-a --role "Implement the changes in a"',
    });
    expect(a.split).toBe(true);
  });

  it('a long prompt and a keyword fire on the text alone; missing tests names the files', () => {
    const a = analyzeTask(shipped, { prompt: `Migrate the store. ${'x'.repeat(2100)}`, files: ['src/store.ts'] });
    expect(a.fired.map((f) => f.trigger)).toEqual(['missing_tests', 'prompt_chars', 'keywords']);
    expect(a.team.find((m) => m.role === 'tester')?.task).toBe('Write the missing tests for src/store.ts');
  });

  it('a bad suggest.yaml names the file, the key and what it expected', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'synapse-suggest-'));
    const file = path.join(dir, 'suggest.yaml');
    fs.writeFileSync(file, 'triggers: {}\nteam:\n  - role: dev\n    when: [sometimes]\n    task: x\n');
    await expect(loadSuggestConfig(file)).rejects.toThrow(new RegExp(`${file}: key team\\.0\\.when\\.0 `));
    fs.writeFileSync(file, 'triggers:\n  file_count: many\nteam: []\n');
    await expect(loadSuggestConfig(file)).rejects.toThrow(/key triggers\.file_count must be integer/);
    fs.rmSync(dir, { recursive: true });
  });
});
