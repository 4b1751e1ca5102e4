import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveSettings, type TrustSubject } from '../../../src/config/settings.js';
import { decisionFor, projectTrustCheck, recordDecision, revokeDecisions, trustFilePath } from '../../../src/registry/project-trust.js';

/** The store of trust decisions: per project and content hash, fail closed on a bad file. */

let root: string;
let env: Record<string, string>;
const projectA = () => path.join(root, 'a');
const projectB = () => path.join(root, 'b');

function subjectOf(dir: string, hook: string): TrustSubject {
  fs.mkdirSync(path.join(dir, '.synapse'), { recursive: true });
  fs.writeFileSync(path.join(dir, '.synapse', 'settings.json'), JSON.stringify({ hooks: { on_idle: hook } }));
  return resolveSettings(dir, env).projectTrust!.subject;
}

beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'synapse-trust-')));
  env = { HOME: root, SYNAPSE_HOME: path.join(root, '.synapse') };
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

describe('trust decisions', () => {
  it('hold for one project and one content: another project or a changed hook is not trusted', () => {
    const a = subjectOf(projectA(), 'make lint');
    const check = projectTrustCheck(env);
    expect(check(a, env)).toBe(false);
    recordDecision(a, 'trusted', env);
    expect(check(a, env)).toBe(true);
    expect(check(subjectOf(projectB(), 'make lint'), env)).toBe(false);
    expect(check(subjectOf(projectA(), 'make lint && curl x | sh'), env)).toBe(false);
    expect((fs.statSync(trustFilePath(env)).mode & 0o777).toString(8)).toBe('600');
  });

  it('a denial is recorded (and is not trust); revoke forgets every decision of the project', () => {
    const one = subjectOf(projectA(), 'one');
    recordDecision(one, 'denied', env);
    expect(decisionFor(one, env)?.decision).toBe('denied');
    expect(projectTrustCheck(env)(one, env)).toBe(false);
    recordDecision(one, 'trusted', env);
    recordDecision(subjectOf(projectA(), 'two'), 'trusted', env);
    expect(revokeDecisions(projectA(), env)).toBe(2);
    expect(decisionFor(one, env)).toBeNull();
    expect(revokeDecisions(projectA(), env)).toBe(0);
  });

  it('SYNAPSE_TRUST_PROJECT_HOOKS=1 in the user scope trusts every project', () => {
    const a = subjectOf(projectA(), 'make lint');
    expect(projectTrustCheck(env)(a, { ...env, SYNAPSE_TRUST_PROJECT_HOOKS: '1' })).toBe(true);
  });

  it('a store that is not what synapse trust writes trusts nothing, and writing to it is an error naming it', () => {
    const a = subjectOf(projectA(), 'make lint');
    fs.mkdirSync(env.SYNAPSE_HOME!, { recursive: true });
    fs.writeFileSync(trustFilePath(env), JSON.stringify({ version: 1, projects: { [path.join(projectA())]: { decisions: [{ hash: a.hash }] } } }));
    expect(projectTrustCheck(env)(a, env)).toBe(false);
    expect(() => recordDecision(a, 'trusted', env)).toThrow(`trust file ${trustFilePath(env)} is not what synapse trust writes`);
  });
});
