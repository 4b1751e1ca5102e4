import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fillPlaceholders, instructionParts, PACKAGE_TEMPLATE_DIR, renderInstructions, renderStartupInstruction } from '../../../src/config/instructions.js';
import { loadSettings } from '../../../src/config/settings.js';

let home: string;
let project: string;
const env = (extra: Record<string, string> = {}) => ({ HOME: home, SYNAPSE_HOME: path.join(home, '.synapse'), ...extra });
const vars = { agent_id: 'synapse-claude-8100', port: 8100, name: 'alice', role: 'reviewer' };

beforeEach(() => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'synapse-instr-home-'));
  project = fs.mkdtempSync(path.join(os.tmpdir(), 'synapse-instr-project-'));
});
afterEach(() => {
  fs.rmSync(home, { recursive: true, force: true });
  fs.rmSync(project, { recursive: true, force: true });
});

describe('start-up instructions', () => {
  it('fills in {{agent_id}} {{port}} {{name}} {{role}}; an unnamed agent is called by its id', () => {
    expect(fillPlaceholders('{{agent_id}} {{ port }} {{name}} {{role}} {{other}}', vars)).toBe('synapse-claude-8100 8100 alice reviewer {{other}}');
    expect(fillPlaceholders('{{name}}', { agent_id: 'synapse-echo-8190', port: 8190 })).toBe('synapse-echo-8190');
  });

  it('fills in {{endpoint}}: the agent’s own (https with TLS), else http on loopback', () => {
    expect(fillPlaceholders('{{endpoint}}/x', { ...vars, endpoint: 'https://127.0.0.1:8100' })).toBe('https://127.0.0.1:8100/x');
    expect(fillPlaceholders('{{endpoint}}/x', vars)).toBe('http://127.0.0.1:8100/x');
  });

  it('the shipped default, one line, with every placeholder filled in', () => {
    const text = renderStartupInstruction('claude', loadSettings(project, env()), project, env(), vars);
    expect(text).toContain('You are agent synapse-claude-8100 (name: alice, role: reviewer)');
    expect(text).toContain('http://127.0.0.1:8100/.well-known/agent.json');
    expect(text).not.toMatch(/\n|\{\{/);
  });

  it('gemini gets gemini.md; a project file overrides the shipped one; the user scope comes between', () => {
    expect(instructionParts('gemini', loadSettings(project, env()), project, env())).toEqual([
      { reason: 'instructions.gemini', name: 'gemini.md', file: path.join(PACKAGE_TEMPLATE_DIR, 'gemini.md'), source: 'package' },
    ]);
    fs.mkdirSync(path.join(home, '.synapse'), { recursive: true });
    fs.writeFileSync(path.join(home, '.synapse', 'default.md'), 'user default for {{name}}');
    expect(renderInstructions('codex', loadSettings(project, env()), project, env(), vars)).toBe('user default for alice');
    fs.mkdirSync(path.join(project, '.synapse'));
    fs.writeFileSync(path.join(project, '.synapse', 'default.md'), 'project default on {{port}}');
    expect(renderInstructions('codex', loadSettings(project, env()), project, env(), vars)).toBe('project default on 8100');
  });

  it('a profile entry can be the text itself', () => {
    fs.mkdirSync(path.join(project, '.synapse'));
    fs.writeFileSync(path.join(project, '.synapse', 'settings.json'), JSON.stringify({ instructions: { codex: 'You are {{name}}, the {{role}}.' } }));
    expect(renderInstructions('codex', loadSettings(project, env()), project, env(), vars)).toBe('You are alice, the reviewer.');
    expect(instructionParts('codex', loadSettings(project, env()), project, env())[0]?.source).toBe('inline');
  });

  it('learning, translation and proactive modes append their files, in order', () => {
    const e = env({ SYNAPSE_LEARNING_MODE_ENABLED: 'true', SYNAPSE_PROACTIVE_MODE_ENABLED: '1', SYNAPSE_FILE_SAFETY_ENABLED: 'true' });
    const parts = instructionParts('claude', loadSettings(project, e), project, e);
    expect(parts.map((p) => p.name)).toEqual(['default.md', 'file-safety.md', 'learning.md', 'proactive.md']);
    const text = renderInstructions('claude', loadSettings(project, e), project, e, vars);
    expect(text).toContain('[SYNAPSE LEARNING MODE]');
    expect(text).toContain('[SYNAPSE PROACTIVE MODE]');
    expect(text).toContain('synapse file-safety lock <file> synapse-claude-8100');
    expect(text).not.toContain('restate each request in English');
    const t = env({ SYNAPSE_LEARNING_MODE_TRANSLATION: '1' });
    expect(renderInstructions('claude', loadSettings(project, t), project, t, vars)).toContain('restate each request in English');
    // Off by default: only the main instruction.
    expect(instructionParts('claude', loadSettings(project, env()), project, env()).map((p) => p.name)).toEqual(['default.md']);
  });

  it('a named file found nowhere is an error that says what to do', () => {
    fs.mkdirSync(path.join(project, '.synapse'));
    fs.writeFileSync(path.join(project, '.synapse', 'settings.json'), JSON.stringify({ instructions: { default: 'team.md' } }));
    expect(() => renderInstructions('claude', loadSettings(project, env()), project, env(), vars)).toThrow(
      'the instruction file team.md (instructions.default) is in neither',
    );
  });
});
