import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { codeBlocks, derivedArtifacts, detectError, fileReports, isDerived } from '../../../src/agent-api/output-parse.js';
import { wireArtifacts } from '../../../src/agent-api/wire.js';
import { peerTaskText } from '../../../src/a2a/wire-client.js';

const SCREENS = path.resolve(import.meta.dirname, '../../fixtures/screens');

/** Every recorded turn of the real CLIs: `after.txt` screens (what a turn drew) and expected replies. */
function recordedTurns(): Array<{ name: string; after: string; reply: string }> {
  const out: Array<{ name: string; after: string; reply: string }> = [];
  for (const cli of fs.readdirSync(SCREENS)) {
    const dir = path.join(SCREENS, cli);
    if (!fs.statSync(dir).isDirectory()) continue;
    for (const version of fs.readdirSync(dir)) {
      const turns = path.join(dir, version, 'turns');
      if (!fs.existsSync(turns)) continue;
      for (const t of fs.readdirSync(turns)) {
        const read = (f: string) => (fs.existsSync(path.join(turns, t, f)) ? fs.readFileSync(path.join(turns, t, f), 'utf8') : '');
        out.push({ name: `${cli}/${version}/${t}`, after: read('after.txt'), reply: read('expected-reply.txt') });
      }
    }
  }
  return out;
}

describe('output parsing (issue 20 §4)', () => {
  it('reads nothing into the recorded turns of the real CLIs that went well', () => {
    const turns = recordedTurns();
    expect(turns.length).toBeGreaterThan(10);
    for (const t of turns) {
      expect(detectError(`${t.after}\n${t.reply}`), t.name).toBeNull();
      expect(codeBlocks(t.reply), t.name).toEqual([]);
    }
  });

  it('makes each fenced code block an artifact with its language', () => {
    const answer = 'Here:\n```ts\nconst a = 1;\n```\nand\n```\nplain\n```\n  ```Python\n  print(1)\n  ```';
    expect(codeBlocks(answer)).toEqual([
      { language: 'ts', code: 'const a = 1;' },
      { language: 'text', code: 'plain' },
      { language: 'python', code: '  print(1)' },
    ]);
  });

  it('reads the files each CLI reports as written, and the original prose forms', () => {
    const transcript = [
      '● Write(src/new.ts)',
      '  ⎿  Wrote 12 lines to src/new.ts',
      '● Update(src/app.ts)',
      '• Edited src/b.py (+3 -1)',
      '• Added docs/c.md (+10 -0)',
      '• Deleted old.txt',
      ' ✓  WriteFile Writing to notes.txt',
    ].join('\n');
    expect(fileReports(`${transcript}\nI also created \`lib/d.json\` and removed tmp.csv.`)).toEqual([
      { path: 'src/new.ts', action: 'created' },
      { path: 'src/app.ts', action: 'modified' },
      { path: 'src/b.py', action: 'modified' },
      { path: 'docs/c.md', action: 'created' },
      { path: 'old.txt', action: 'deleted' },
      { path: 'notes.txt', action: 'created' },
      { path: 'lib/d.json', action: 'created' },
      { path: 'tmp.csv', action: 'deleted' },
    ]);
  });

  it.each([
    [
      'bash',
      '● Bash(frobnicate --all)\n  ⎿  Error: Exit code 127\n     /bin/bash: line 1: frobnicate: command not found',
      'COMMAND_NOT_FOUND',
      { command: 'frobnicate' },
    ],
    ['zsh', 'zsh: command not found: frob', 'COMMAND_NOT_FOUND', { command: 'frob' }],
    ['permission', "touch: cannot touch '/etc/x': Permission denied", 'PERMISSION_DENIED', {}],
    ['exit code', '  ⎿  Error: Exit code 2', 'NONZERO_EXIT', { exit_code: 2 }],
    ['exited with', 'npm test exited with code 1', 'NONZERO_EXIT', { exit_code: 1 }],
    ['python', 'Traceback (most recent call last):\n  File "a.py", line 1, in <module>\nNameError: x', 'STACK_TRACE', {}],
    ['node', 'TypeError: x is not a function\n    at f (/a.js:1:2)\n    at g (/a.js:3:4)\n', 'STACK_TRACE', {}],
  ])('%s: a structured error with the line it came from', (_n, text, code, data) => {
    const e = detectError(text);
    expect(e?.code).toBe(code);
    expect(e?.data).toMatchObject({ excerpt: expect.any(String), ...data });
  });

  it('leaves prose about errors alone', () => {
    for (const text of ['I fixed the error handling in a.ts', 'The file was not found in the cache, so I rebuilt it', 'exit code 0', 'All 12 tests passed.'])
      expect(detectError(text), text).toBeNull();
  });

  it('derived artifacts go on the wire in the original shapes and are not shown twice as the answer', () => {
    const answer = 'Done.\n```js\nx()\n```\nI created `a.ts`.';
    const derived = derivedArtifacts(answer, '');
    expect(derived.map((a) => a.name)).toEqual(['code', 'files']);
    expect(derived.every(isDerived)).toBe(true);
    const wire = wireArtifacts([{ artifact_id: '1', name: 'response', parts: [{ type: 'text', text: answer }] }, ...derived]);
    expect(wire).toEqual([
      { type: 'text', data: answer },
      { type: 'code', data: { content: 'x()', metadata: { language: 'js', derived: true } } },
      { type: 'file', data: { content: 'a.ts', metadata: { action: 'created', derived: true } } },
    ]);
    expect(peerTaskText({ id: 't', status: 'completed', artifacts: wire } as never)).toBe(answer);
  });
});
