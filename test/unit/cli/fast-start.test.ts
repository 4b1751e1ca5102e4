import { describe, expect, it } from 'vitest';
import { buildProgram, withDefaultRun } from '../../../src/cli/program.js';
import { PROFILE_NAMES, plainAgentStart } from '../../../src/cli/fast-start.js';
import { listProfiles } from '../../../src/profiles/index.js';

/** What commander's `run` action receives for argv (the profile, its CLI args, the flags), or null when it would not run. */
async function viaCommander(args: string[]): Promise<unknown> {
  const program = buildProgram();
  let got: unknown = null;
  program.configureOutput({ writeOut: () => undefined, writeErr: () => undefined });
  for (const c of program.commands) {
    c.configureOutput({ writeOut: () => undefined, writeErr: () => undefined });
    const command = c.name();
    c.action((profile: string, cliArgs: string[], flags: unknown) => void (got = { command, profile, cliArgs, flags }));
  }
  try {
    await program.parseAsync(withDefaultRun(program, ['node', 'synapse', ...args]));
  } catch {
    return null;
  }
  return got;
}

describe('the fast path of `synapse <profile>` and `synapse start <profile>`', () => {
  it('knows every shipped profile and alias, and no command has such a name', () => {
    expect([...PROFILE_NAMES].sort()).toEqual(
      listProfiles()
        .flatMap((p) => [p.id, ...p.aliases])
        .sort(),
    );
    const commands = buildProgram().commands.flatMap((c) => [c.name(), ...c.aliases()]);
    expect(commands.filter((c) => PROFILE_NAMES.includes(c))).toEqual([]);
  });

  const plain = [
    ['echo'],
    ['Echo'],
    ['dummy', '--no-setup'],
    ['claude', '-n', 'alice', '--role', '@roles/r.md', '-p', '8190', '--host', '0.0.0.0', '--headless', '--auto-approve', '--delegate-mode'],
    ['codex', '--name', 'bob', '-r', 'reviews'],
    ['start', 'echo'],
    ['start', 'dummy', '--json', '--name', 'alice', '-p', '8190', '--host', '127.0.0.1', '--role', 'x', '--auto-approve', '--delegate-mode'],
  ];
  it.each(plain)('parses %j exactly as commander does', async (...args) => {
    const fast = plainAgentStart(['node', 'synapse', ...args]);
    expect(fast).not.toBeNull();
    expect({ command: fast!.command, profile: fast!.profile, cliArgs: [], flags: fast!.flags }).toEqual(await viaCommander(args));
  });

  const notPlain = [
    [],
    ['list'],
    ['run', 'echo'],
    ['start'],
    ['start', 'nosuchprofile'],
    ['start', 'echo', '--headless'],
    ['start', 'echo', '--no-setup'],
    ['start', 'echo', '--worktree'],
    ['start', 'echo', '--help'],
    ['stop', 'echo'],
    ['echo', '--json'],
    ['echo', '--help'],
    ['echo', '-h'],
    ['echo', '--', '--model', 'x'],
    ['echo', 'extra'],
    ['echo', '--name=alice'],
    ['echo', '--port', '0'],
    ['echo', '--port', 'x'],
    ['echo', '--name'],
    ['echo', '--name', '--headless'],
    ['echo', '--name', 'a', '--name', 'b'],
    ['echo', '--worktree'],
    ['echo', '-A', 'saved'],
    ['echo', '--unknown'],
    ['nosuchprofile'],
    ['--version'],
  ];
  it.each(notPlain)('leaves %j to commander', (...args) => {
    expect(plainAgentStart(['node', 'synapse', ...args])).toBeNull();
  });
});
