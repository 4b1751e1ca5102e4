import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { findProfile } from '../../../src/profiles/index.js';
import { classifyScreen, viewOf } from '../../../src/profiles/screen-rules.js';

const ROOT = fileURLToPath(new URL('../../fixtures/screens/', import.meta.url));
const STATUSES = ['starting', 'ready', 'processing', 'waiting'] as const;
const EXPECTED: Record<(typeof STATUSES)[number], string | null> = { starting: null, ready: 'READY', processing: 'PROCESSING', waiting: 'WAITING' };

function lines(file: string): string[] {
  return fs.readFileSync(file, 'utf8').replace(/\n$/, '').split('\n');
}

// Every recorded screen of a real CLI, checked against the profile of that CLI.
for (const cli of fs.existsSync(ROOT) ? fs.readdirSync(ROOT).filter((d) => fs.statSync(path.join(ROOT, d)).isDirectory()) : []) {
  const profile = findProfile(cli);
  if (!profile) continue;
  for (const version of fs.readdirSync(path.join(ROOT, cli)).filter((d) => fs.statSync(path.join(ROOT, cli, d)).isDirectory())) {
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
      for (const turn of fs.existsSync(turns) ? fs.readdirSync(turns) : []) {
        const dir = path.join(turns, turn);
        if (!fs.existsSync(path.join(dir, 'expected-reply.txt'))) continue;
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
