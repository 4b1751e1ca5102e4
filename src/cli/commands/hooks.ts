import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { SynapseError } from '../../errors.js';
import { CLAUDE_WRITE_TOOLS, PRE_WRITE_HOOK_PROFILES, PRE_WRITE_SUBCOMMAND, hasClaudePreWriteHook } from '../../config/pre-write-hook.js';
import { envSetting } from '../../config/env-setting.js';
import { DEFERRED_CA_VAR } from '../../extra-ca-certs.js';
import { ExitRequest } from '../exit.js';
import { printJson, println, processIo, type CommandIo } from '../io.js';
import { examples, projectDir } from './store-cli.js';

/**
 * The hook command: this very `synapse`, by absolute path, so the hook does not depend on PATH.
 * It runs on every write the CLI makes, so it starts as the bin's shebang does, with
 * NODE_EXTRA_CA_CERTS held aside (src/extra-ca-certs.ts: ~30-40 ms a run with a system CA bundle).
 * Claude Code runs it with `sh -c`, where the assignments happen left to right: the value is read
 * before it is emptied.
 */
function hookCommand(): string {
  const bin = process.argv[1] ? path.resolve(process.argv[1]) : 'synapse';
  return `${DEFERRED_CA_VAR}="$NODE_EXTRA_CA_CERTS" NODE_EXTRA_CA_CERTS= "${process.execPath}" "${bin}" ${PRE_WRITE_SUBCOMMAND}`;
}

/**
 * `synapse hooks install <profile>`: merges a PreToolUse hook for Edit|Write|MultiEdit into the
 * project's `.claude/settings.json` (other keys and hooks are kept) that denies a write to a path
 * another agent holds a file-safety lock on.
 */
async function hooksInstall(profile: string, o: { json?: boolean }, io: CommandIo): Promise<void> {
  const spec = PRE_WRITE_HOOK_PROFILES[profile];
  if (!spec) {
    throw new SynapseError(
      'usage',
      `no pre-write hook is known for ${profile}: its locks stay advisory; supported: ${Object.keys(PRE_WRITE_HOOK_PROFILES).join(', ')}`,
    );
  }
  const file = spec.settingsFile(projectDir(io));
  let settings: Record<string, unknown> = {};
  if (fs.existsSync(file)) {
    try {
      const parsed: unknown = JSON.parse(fs.readFileSync(file, 'utf8'));
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not a JSON object');
      settings = parsed as Record<string, unknown>;
    } catch (err) {
      throw new SynapseError('invalid_input', `cannot read ${file}: ${(err as Error).message}; fix it, then run this again`);
    }
  }
  const already = hasClaudePreWriteHook(settings);
  if (!already) {
    const hooks = (settings.hooks && typeof settings.hooks === 'object' ? settings.hooks : {}) as Record<string, unknown>;
    const pre: unknown[] = Array.isArray(hooks.PreToolUse) ? (hooks.PreToolUse as unknown[]) : [];
    hooks.PreToolUse = [...pre, { matcher: CLAUDE_WRITE_TOOLS, hooks: [{ type: 'command', command: hookCommand() }] }];
    settings.hooks = hooks;
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, `${JSON.stringify(settings, null, 2)}\n`);
  }
  if (o.json) return printJson(io, { profile, file, installed: !already, already_installed: already });
  println(io, already ? `already installed in ${file}` : `installed the pre-write hook in ${file}: writes to paths another agent locked are now blocked`);
}

/**
 * `synapse hooks pre-write`: the hook itself. Reads Claude Code's PreToolUse JSON on stdin and
 * exits 2 with the reason on stderr (Claude Code's "block this tool call") when the file is
 * locked by another agent; 0 otherwise. Outside a Synapse agent (no SYNAPSE_AGENT_ID) it allows.
 */
async function hooksPreWrite(io: CommandIo): Promise<void> {
  const agent = envSetting(io.env, 'SYNAPSE_AGENT_ID');
  if (!agent) return;
  let input: unknown;
  try {
    input = JSON.parse(await io.readStdin());
  } catch {
    io.err('synapse hooks pre-write: the hook input is not JSON; the write was not checked\n');
    throw new ExitRequest(1);
  }
  // Loaded here: the hook is the only user, and every other command starts without TypeBox.
  const { Type } = await import('typebox');
  const { Value } = await import('typebox/value');
  /** What Claude Code sends a PreToolUse hook on stdin (the fields we read; others are allowed). */
  const PreToolUseInput = Type.Object({
    tool_name: Type.Optional(Type.String()),
    cwd: Type.Optional(Type.String()),
    tool_input: Type.Optional(Type.Object({ file_path: Type.Optional(Type.String()) })),
  });
  if (!Value.Check(PreToolUseInput, input)) {
    io.err('synapse hooks pre-write: unexpected hook input; the write was not checked\n');
    throw new ExitRequest(1);
  }
  const file = (input as { tool_input?: { file_path?: string } }).tool_input?.file_path;
  if (!file) return;
  const dir = envSetting(io.env, 'SYNAPSE_PROJECT_DIR') ?? input.cwd ?? io.cwd;
  const { validateWrite } = await import('../../store/file-safety-store.js');
  const verdict = await validateWrite(dir, file, agent, io.env);
  if (verdict.allowed) return;
  io.err(`Blocked by Synapse file safety: ${verdict.reason}. Do not write this file; ask its holder (synapse send) or wait for the lock.\n`);
  throw new ExitRequest(2);
}

export function registerHooksCommands(program: Command): void {
  const hooks = program.command('hooks').description("Make file-safety locks binding: install a CLI's pre-write hook that blocks writes to locked paths");
  examples(
    hooks
      .command('install')
      .description("Merge a pre-write hook into the project's CLI settings (claude: .claude/settings.json, PreToolUse on Edit|Write|MultiEdit)")
      .argument('<profile>', 'the CLI profile (claude)')
      .option('--json', 'print as JSON'),
    ['synapse hooks install claude', 'synapse status alice    # locks: enforced'],
  ).action((profile: string, o: { json?: boolean }) => hooksInstall(profile, o, processIo()));
  examples(
    hooks
      .command('pre-write')
      .description("The hook itself: reads the CLI's PreToolUse JSON on stdin; exit 2 (blocked, reason on stderr) when another agent holds the path"),
    [`echo '{"tool_name":"Write","tool_input":{"file_path":"src/a.ts"}}' | SYNAPSE_AGENT_ID=bob synapse hooks pre-write`],
  ).action(() => hooksPreWrite(processIo()));
}
