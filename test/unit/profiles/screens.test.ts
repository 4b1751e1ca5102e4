import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { findProfile } from '../../../src/profiles/index.js';
import { classifyScreen, viewOf } from '../../../src/profiles/screen-rules.js';

const ROOT = fileURLToPath(new URL('../../fixtures/screens/', import.meta.url));
const STATUSES = ['starting', 'ready', 'processing', 'waiting'] as const;
const EXPECTED: Record<(typeof STATUSES)[number], string | null> = { starting: null, ready: 'READY', processing: 'PROCESSING', waiting: 'WAITING' };

const TURN_FILES = ['before.txt', 'after.txt', 'user.txt', 'expected-reply.txt'];

function lines(file: string): string[] {
  return fs.readFileSync(file, 'utf8').replace(/\n$/, '').split('\n');
}

function dirs(dir: string): string[] {
  return fs.existsSync(dir) ? fs.readdirSync(dir).filter((d) => fs.statSync(path.join(dir, d)).isDirectory()) : [];
}

/**
 * Fixture folders no test below reads, each with the reason: a CLI folder that names no
 * profile or holds no version folder, a folder beside the status folders and `turns/`, a turn
 * without its four files. Each would be a recording that silently proves nothing.
 */
function unread(): string[] {
  if (!fs.existsSync(ROOT)) return [`${ROOT} does not exist`];
  const out: string[] = [];
  for (const cli of dirs(ROOT)) {
    if (!findProfile(cli)) out.push(`${cli}/: no profile is named ${cli}`);
    if (dirs(path.join(ROOT, cli)).length === 0) out.push(`${cli}/: no CLI version folder`);
    for (const version of dirs(path.join(ROOT, cli))) {
      for (const d of dirs(path.join(ROOT, cli, version))) {
        if (d !== 'turns' && !(STATUSES as readonly string[]).includes(d)) out.push(`${cli}/${version}/${d}/: not one of ${STATUSES.join(', ')}, turns`);
      }
      for (const turn of dirs(path.join(ROOT, cli, version, 'turns'))) {
        const missing = TURN_FILES.filter((f) => !fs.existsSync(path.join(ROOT, cli, version, 'turns', turn, f)));
        if (missing.length) out.push(`${cli}/${version}/turns/${turn}/: missing ${missing.join(', ')}`);
      }
    }
  }
  return out;
}

it('reads every recorded-screen folder (an unmatched one fails here instead of being skipped)', () => {
  expect(unread()).toEqual([]);
});

// Every recorded screen of a real CLI, checked against the profile of that CLI.
for (const cli of dirs(ROOT)) {
  const profile = findProfile(cli);
  if (!profile) continue; // reported by the test above
  for (const version of dirs(path.join(ROOT, cli))) {
    describe(`${cli} ${version}: status rules on recorded screens`, () => {
      for (const status of STATUSES) {
        const dir = path.join(ROOT, cli, version, status);
        const files = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.txt')) : [];
        it(`has recorded ${status} screens`, () => expect(files.length).toBeGreaterThan(0));
        for (const f of files) {
          it(`${status}/${f}`, () => {
            const got = classifyScreen(profile, viewOf(lines(path.join(dir, f))));
            if (status === 'starting') expect(got).not.toBe('READY');
            else expect(got).toBe(EXPECTED[status]);
          });
        }
      }
      const turns = path.join(ROOT, cli, version, 'turns');
      for (const turn of dirs(turns)) {
        const dir = path.join(turns, turn);
        if (!TURN_FILES.every((f) => fs.existsSync(path.join(dir, f)))) continue; // reported above
        it(`reply extraction: ${turn}`, () => {
          const before = lines(path.join(dir, 'before.txt'));
          const after = lines(path.join(dir, 'after.txt'));
          const user = fs.readFileSync(path.join(dir, 'user.txt'), 'utf8');
          let i = 0;
          while (i < before.length && before[i] === after[i]) i++;
          expect(profile.cleanOutput(after.slice(i), user)).toBe(fs.readFileSync(path.join(dir, 'expected-reply.txt'), 'utf8').trim());
        });
      }
    });
  }
}
