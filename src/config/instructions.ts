import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SynapseError } from '../errors.js';
import { envSetting } from './env-setting.js';
import { projectSynapseDir, synapseHome, type Env } from './paths.js';
import type { Settings } from './settings.js';

/** The templates shipped with the package (`<package>/templates/synapse/`), copied by `synapse init`. */
export const PACKAGE_TEMPLATE_DIR = fileURLToPath(new URL('../../templates/synapse/', import.meta.url));

/** One part of an agent's start-up instruction: a file (found in a scope) or inline text from the settings. */
export interface InstructionPart {
  /** What adds it: `instructions.<key>`, or the variable that appends it. */
  reason: string;
  /** The .md name, or null for inline text. */
  name: string | null;
  /** Where the file was found; null for inline text or a file found nowhere. */
  file: string | null;
  source: 'project' | 'user' | 'package' | 'inline' | 'missing';
}

export interface InstructionVars {
  agent_id: string;
  port: number;
  /** The agent's base URL (`https://…` when it serves over TLS); `http://127.0.0.1:<port>` when not given. */
  endpoint?: string | null;
  name?: string | null;
  role?: string | null;
  /** Started with `--delegate-mode`: the manager's rules are added (`DELEGATE_MODE`). */
  delegate?: boolean;
}

/** What a manager started with `--delegate-mode` is told, after its other instructions. */
const DELEGATE_MODE =
  'Delegate mode: you are the manager of this team. You coordinate and do not edit files yourself: ' +
  'plan the work, split it into tasks and hand each to an agent with `synapse send <agent> "<the work>" --task` ' +
  '(a board task assigned to it and linked to the message; `--task <id>` links an existing board task). ' +
  'A send of work without a board task is refused. File locks are refused to you (file-safety), so do not write files: ' +
  "ask an agent to. Follow progress with `synapse tasks list` and the agents' answers, review their work, and report.";

const TRANSLATION =
  'Learning mode, translation: restate each request in English in one line before you act on it, then answer in the language the user wrote in.';

/** A `.md` name is looked up in the project's `.synapse/`, then `~/.synapse/`, then the shipped templates. */
function locate(name: string, cwd: string, env: Env): Pick<InstructionPart, 'file' | 'source'> {
  const scopes: [InstructionPart['source'], string][] = [
    ['project', projectSynapseDir(cwd)],
    ['user', synapseHome(env)],
    ['package', PACKAGE_TEMPLATE_DIR],
  ];
  for (const [source, dir] of scopes) {
    const file = path.join(dir, name);
    if (fs.existsSync(file)) return { file, source };
  }
  return { file: null, source: 'missing' };
}

/**
 * The parts of a profile's start-up instruction, in order: `instructions.<profile>` (else
 * `instructions.default`), then file-safety.md when `SYNAPSE_FILE_SAFETY_ENABLED` is set on
 * explicitly, learning.md with `SYNAPSE_LEARNING_MODE_ENABLED` (or `_TRANSLATION`), proactive.md
 * with `SYNAPSE_PROACTIVE_MODE_ENABLED`.
 */
export function instructionParts(profile: string, settings: Pick<Settings, 'instructions'>, cwd: string, env: Env): InstructionPart[] {
  const key = settings.instructions[profile] ? profile : 'default';
  const main = settings.instructions[key] ?? '';
  const parts: InstructionPart[] = [];
  const add = (reason: string, value: string) => {
    if (value.trim() === '') return;
    if (/\.md$/i.test(value.trim()) && !/\s/.test(value.trim())) parts.push({ reason, name: value.trim(), ...locate(value.trim(), cwd, env) });
    else parts.push({ reason, name: null, file: null, source: 'inline' });
  };
  add(`instructions.${key}`, main);
  if (env.SYNAPSE_FILE_SAFETY_ENABLED !== undefined && envSetting(env, 'SYNAPSE_FILE_SAFETY_ENABLED')) add('SYNAPSE_FILE_SAFETY_ENABLED', 'file-safety.md');
  if (envSetting(env, 'SYNAPSE_LEARNING_MODE_ENABLED') || envSetting(env, 'SYNAPSE_LEARNING_MODE_TRANSLATION'))
    add('SYNAPSE_LEARNING_MODE_ENABLED', 'learning.md');
  if (envSetting(env, 'SYNAPSE_PROACTIVE_MODE_ENABLED')) add('SYNAPSE_PROACTIVE_MODE_ENABLED', 'proactive.md');
  return parts;
}

function readPart(part: InstructionPart, settings: Pick<Settings, 'instructions'>): string {
  if (part.source === 'inline') return settings.instructions[part.reason.slice('instructions.'.length)] ?? '';
  if (part.file === null)
    throw new SynapseError(
      'invalid_input',
      `the instruction file ${part.name} (${part.reason}) is in neither .synapse/, ~/.synapse/ nor the templates; run synapse init or fix the setting`,
    );
  try {
    return fs.readFileSync(part.file, 'utf8');
  } catch (err) {
    throw new SynapseError('invalid_input', `cannot read the start-up instruction ${part.file}: ${(err as Error).message}`, { file: part.file });
  }
}

/** Fills in `{{agent_id}}`, `{{port}}`, `{{endpoint}}`, `{{name}}` (the agent id when unnamed) and `{{role}}`. */
export function fillPlaceholders(text: string, vars: InstructionVars): string {
  const values: Record<string, string> = {
    agent_id: vars.agent_id,
    port: String(vars.port),
    endpoint: vars.endpoint || `http://127.0.0.1:${vars.port}`,
    name: vars.name || vars.agent_id,
    role: vars.role || 'none given',
  };
  return text.replace(/\{\{\s*(agent_id|port|endpoint|name|role)\s*\}\}/g, (_, key: string) => values[key] ?? '');
}

/** The whole instruction of a profile, parts separated by a blank line, placeholders filled in. */
export function renderInstructions(profile: string, settings: Pick<Settings, 'instructions'>, cwd: string, env: Env, vars: InstructionVars): string {
  const texts = instructionParts(profile, settings, cwd, env).map((p) => readPart(p, settings).trim());
  if (envSetting(env, 'SYNAPSE_LEARNING_MODE_TRANSLATION')) texts.push(TRANSLATION);
  if (vars.delegate) texts.push(DELEGATE_MODE);
  return fillPlaceholders(texts.filter(Boolean).join('\n\n'), vars);
}

/** The start-up instruction as the CLI gets it: one message, newlines become spaces. */
export function renderStartupInstruction(profile: string, settings: Pick<Settings, 'instructions'>, cwd: string, env: Env, vars: InstructionVars): string {
  return renderInstructions(profile, settings, cwd, env, vars)
    .replace(/\s*\n\s*/g, ' ')
    .trim();
}
