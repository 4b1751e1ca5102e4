import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findConversationId, resumeArgs, withConversationId } from '../../../src/profiles/conversation.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('the conversation id given at start', () => {
  it('Claude Code and the echo agent get a fresh --session-id <uuid>, which is the id recorded', () => {
    for (const profile of ['claude', 'echo'] as const) {
      const { args, sessionId } = withConversationId(profile, ['--model', 'x']);
      expect(sessionId).toMatch(UUID);
      expect(args).toEqual(['--session-id', sessionId, '--model', 'x']);
    }
  });

  it("the user's own --session-id, --resume ID or --continue is left alone; the id is theirs, or unknown for --continue", () => {
    expect(withConversationId('claude', ['--session-id', 'mine'])).toEqual({ args: ['--session-id', 'mine'], sessionId: 'mine' });
    expect(withConversationId('claude', ['--resume=abc'])).toEqual({ args: ['--resume=abc'], sessionId: 'abc' });
    expect(withConversationId('claude', ['-r', 'abc'])).toEqual({ args: ['-r', 'abc'], sessionId: 'abc' });
    expect(withConversationId('echo', ['--continue'])).toEqual({ args: ['--continue'], sessionId: null });
    expect(withConversationId('claude', ['--resume'])).toEqual({ args: ['--resume'], sessionId: null });
  });

  it('a flag after a bare -- is an argument, not a choice of conversation', () => {
    const { args, sessionId } = withConversationId('claude', ['--', '--resume']);
    expect(sessionId).toMatch(UUID);
    expect(args.slice(0, 2)).toEqual(['--session-id', sessionId]);
  });

  it('CLIs that take no id at start are started as asked; `codex resume ID` names its conversation', () => {
    expect(withConversationId('gemini', ['--yolo'])).toEqual({ args: ['--yolo'], sessionId: null });
    expect(withConversationId('codex', [])).toEqual({ args: [], sessionId: null });
    expect(withConversationId('codex', ['resume', 'r-1'])).toEqual({ args: ['resume', 'r-1'], sessionId: 'r-1' });
    expect(withConversationId('codex', ['resume', '--last'])).toEqual({ args: ['resume', '--last'], sessionId: null });
  });
});

describe('resume flags per CLI', () => {
  it('name the id where one is known and pick the latest conversation otherwise', () => {
    expect(resumeArgs('claude', 'u1')).toEqual(['--resume', 'u1']);
    expect(resumeArgs('claude', null)).toEqual(['--continue']);
    expect(resumeArgs('echo', 'u1')).toEqual(['--resume', 'u1']);
    expect(resumeArgs('codex', 'r1')).toEqual(['resume', 'r1']);
    expect(resumeArgs('codex', null)).toEqual(['resume', '--last']);
    expect(resumeArgs('gemini', null)).toEqual(['--resume', 'latest']);
    expect(resumeArgs('opencode', 's1')).toEqual(['--session', 's1']);
    expect(resumeArgs('opencode', null)).toEqual(['--continue']);
    expect(resumeArgs('copilot', null)).toEqual(['--continue']);
  });
});

describe("Codex's conversation id, read from its rollout files", () => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'synapse-codex-'));
  const day = path.join(home, '.codex', 'sessions', '2026', '12', '05');
  fs.mkdirSync(day, { recursive: true });
  const write = (id: string, cwd: string, mtime: Date, legacy = false) => {
    const file = path.join(day, `rollout-2026-12-05T10-00-00-${id}.jsonl`);
    const meta = legacy ? { id, cwd, timestamp: mtime.toISOString() } : { timestamp: mtime.toISOString(), type: 'session_meta', payload: { id, cwd } };
    fs.writeFileSync(file, `${JSON.stringify(meta)}\n{"type":"response_item"}\n`);
    fs.utimesSync(file, mtime, mtime);
  };
  const since = Date.parse('2026-12-05T10:00:00Z');
  write('11111111-1111-4111-8111-111111111111', '/work/a', new Date(since - 60_000)); // before the agent started
  write('22222222-2222-4222-8222-222222222222', '/work/b', new Date(since + 1_000)); // another directory
  write('33333333-3333-4333-8333-333333333333', '/work/a', new Date(since + 2_000)); // this one
  write('44444444-4444-4444-8444-444444444444', '/work/a', new Date(since + 3_000)); // a later conversation there
  write('55555555-5555-4555-8555-555555555555', '/work/c', new Date(since + 4_000), true); // the older record shape
  afterAll(() => fs.rmSync(home, { recursive: true, force: true }));

  it('is the earliest conversation in the agent’s working directory since the agent started', () => {
    expect(findConversationId('codex', { cwd: '/work/a', sinceMs: since, env: { HOME: home } })).toBe('33333333-3333-4333-8333-333333333333');
    expect(findConversationId('codex', { cwd: '/work/c', sinceMs: since, env: { HOME: home } })).toBe('55555555-5555-4555-8555-555555555555');
    expect(findConversationId('codex', { cwd: '/work/none', sinceMs: since, env: { HOME: home } })).toBeNull();
    expect(findConversationId('codex', { cwd: '/work/a', sinceMs: since, env: { CODEX_HOME: path.join(home, 'nothing') } })).toBeNull();
  });

  it('is not looked for for the CLIs that take their id at start or resume the latest', () => {
    expect(findConversationId('claude', { cwd: '/work/a', sinceMs: since, env: { HOME: home } })).toBeNull();
    expect(findConversationId('gemini', { cwd: '/work/a', sinceMs: since, env: { HOME: home } })).toBeNull();
  });
});
