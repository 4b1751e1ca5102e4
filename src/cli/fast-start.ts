import type { RunFlags } from './commands/run-agent.js';
import { processIo } from './io.js';

/**
 * The shipped profiles' ids and aliases (src/profiles/index.ts; test/unit/cli/fast-start.test.ts
 * keeps the two equal): loading the profiles themselves would cost every other command ~20 ms.
 */
export const PROFILE_NAMES = [
  'claude',
  'claude-code',
  'gemini',
  'gemini-cli',
  'codex',
  'codex-cli',
  'opencode',
  'opencode-ai',
  'copilot',
  'copilot-cli',
  'github-copilot',
  'echo',
  'dummy',
];

/** `run`'s options that take a value, by every spelling, and the flag each sets (commands/agents.ts). */
const VALUED: Record<string, 'name' | 'role' | 'port' | 'host'> = {
  '-n': 'name',
  '--name': 'name',
  '-r': 'role',
  '--role': 'role',
  '-p': 'port',
  '--port': 'port',
  '--host': 'host',
};
const SHARED: Record<string, (f: RunFlags) => void> = {
  '--auto-approve': (f) => (f.autoApprove = true),
  '--delegate-mode': (f) => (f.delegateMode = true),
};
/** The switches of `run` (`synapse <profile>`) and of `start`, beside the shared ones. */
const SWITCHES = {
  run: { ...SHARED, '--no-setup': (f: RunFlags) => (f.setup = false), '--headless': (f: RunFlags) => (f.headless = true) },
  start: { ...SHARED, '--json': (f: RunFlags) => (f.json = true) },
};

export interface PlainStart {
  command: 'run' | 'start';
  profile: string;
  flags: RunFlags;
}

/**
 * `synapse <profile> [options]` or `synapse start <profile> [options]` when that is all argv says:
 * a shipped profile (or alias) and only the plain options of that command, each once, every value
 * valid. Returns the command, the profile and the flags as commander would have parsed them, or
 * null for anything else (help, `--`, CLI arguments, `=` forms, `--worktree`, `--agent`, a bad
 * port, …), which commander then handles as before.
 */
export function plainAgentStart(argv: string[]): PlainStart | null {
  const command = argv[2] === 'start' ? 'start' : 'run';
  const [profile, ...rest] = argv.slice(command === 'start' ? 3 : 2);
  if (profile === undefined || !PROFILE_NAMES.includes(profile.toLowerCase())) return null;
  // `--no-setup` gives `run` a default (commander sets it to true unless given).
  const flags: RunFlags = command === 'run' ? { setup: true } : {};
  const switches: Record<string, (f: RunFlags) => void> = SWITCHES[command];
  const seen = new Set<string>();
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!;
    const key = VALUED[arg];
    const flag = key ?? arg;
    if (seen.has(flag)) return null;
    seen.add(flag);
    if (key) {
      const value = rest[++i];
      if (value === undefined || value.startsWith('-')) return null;
      if (key === 'port') {
        const port = Number(value);
        if (!/^\d+$/.test(value) || port < 1 || port > 65535) return null;
        flags.port = port;
      } else flags[key] = value;
    } else if (switches[arg]) switches[arg](flags);
    else return null;
  }
  return { command, profile, flags };
}

/** What the `run` or `start` command's action does (commands/agents.ts), without commander or the command tree. */
export async function runPlainAgent(start: PlainStart): Promise<void> {
  // The agent's start-up modules are read beside the command's, not after its checks: one wave of
  // file reads instead of four before the CLI is spawned. Loading them runs nothing; an error
  // surfaces where run-agent.ts imports them.
  if (start.command === 'run') import('../runtime/start-agent.js').catch(() => undefined);
  const { runForeground, startBackground } = await import('./commands/run-agent.js');
  if (start.command === 'start') return startBackground(start.profile, [], start.flags, processIo());
  const code = await runForeground(start.profile, [], start.flags, processIo());
  // The PTY and server handles are closed, but native handles may linger: leave now.
  process.stdout.write('', () => process.exit(code));
  await new Promise(() => undefined);
}
