import { describe, expect, it } from 'vitest';
import { listProfiles } from '../../../src/profiles/index.js';
import { claudeProfile } from '../../../src/profiles/claude.js';
import { codexProfile } from '../../../src/profiles/codex.js';
import { geminiProfile } from '../../../src/profiles/gemini.js';
import { cliEnv } from '../../../src/runtime/cli-env.js';

const id = { agentId: 'synapse-gemini-8110', port: 8110 };
/** What a CI runner, a dev container or a parent agent's shell hands synapse. */
const runner = {
  PATH: '/usr/bin',
  HOME: '/home/u',
  CI: 'true',
  GITHUB_ACTIONS: 'true',
  NO_COLOR: '1',
  TERM: 'dumb',
  CLAUDECODE: '1',
  CLAUDE_CODE_SESSION_ID: 'parent-session',
  CLAUDE_CODE_CHILD_SESSION: '1',
  UNSET: undefined,
};

describe('cliEnv: the CLI gets the environment a person would start it with', () => {
  it('gemini: CI, GITHUB_ACTIONS (headless: exit 42) and NO_COLOR (a box the READY rule cannot read) are dropped', () => {
    const { env, dropped } = cliEnv(runner, geminiProfile, id);
    expect(dropped.sort()).toEqual(['CI', 'GITHUB_ACTIONS', 'NO_COLOR']);
    for (const name of dropped) expect(env).not.toHaveProperty(name);
    expect(env).toMatchObject({ PATH: '/usr/bin', HOME: '/home/u', COLORTERM: 'truecolor', CLAUDECODE: '1' });
  });

  it("claude: the parent Claude Code session's markers are dropped, CI is kept (it does not change its TUI)", () => {
    const { env, dropped } = cliEnv(runner, claudeProfile, id);
    expect(dropped.sort()).toEqual(['CLAUDECODE', 'CLAUDE_CODE_CHILD_SESSION', 'CLAUDE_CODE_SESSION_ID']);
    expect(env).toMatchObject({ CI: 'true', GITHUB_ACTIONS: 'true' });
  });

  it('codex: nothing is dropped; TERM=dumb (which it refuses) becomes a 256-colour terminal for every CLI', () => {
    const { env, dropped } = cliEnv(runner, codexProfile, id);
    expect(dropped).toEqual([]);
    expect(env.CI).toBe('true');
    for (const p of listProfiles()) expect(cliEnv(runner, p, id).env.TERM).toBe('xterm-256color');
  });

  it('says who the CLI runs as, leaves out unset variables, and the profile may set a dropped name itself', () => {
    const { env } = cliEnv(runner, { id: 'gemini', env: { NO_COLOR: '' }, dropEnv: ['NO_COLOR'] }, id);
    expect(env).toMatchObject({ SYNAPSE_AGENT_ID: 'synapse-gemini-8110', SYNAPSE_AGENT_TYPE: 'gemini', SYNAPSE_PORT: '8110', NO_COLOR: '' });
    expect(env).not.toHaveProperty('UNSET');
  });
});
