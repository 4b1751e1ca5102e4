import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../../src/cli/program.js';

/** Every subcommand's `--help`, rendered in-process from the real program. */
function helpOf(...names: string[]): string {
  let cmd: Command = buildProgram();
  for (const name of names) {
    const sub = cmd.commands.find((c) => c.name() === name);
    if (!sub) throw new Error(`no command ${names.join(' ')}`);
    cmd = sub;
  }
  let out = '';
  cmd.configureOutput({ writeOut: (s) => void (out += s), writeErr: (s) => void (out += s) });
  cmd.outputHelp();
  return out;
}

const GROUPS: Record<string, string[]> = {
  tasks: ['create', 'list', 'show', 'assign', 'claim', 'complete', 'fail', 'reopen', 'purge'],
  'file-safety': ['lock', 'unlock', 'locks', 'status', 'validate', 'record', 'history', 'recent', 'cleanup', 'debug'],
  memory: ['save', 'list', 'search', 'show', 'delete', 'stats'],
  history: ['list', 'show', 'search', 'stats', 'export', 'cleanup'],
};

describe('--help', () => {
  for (const [group, subs] of Object.entries(GROUPS)) {
    it(`has an example on every ${group} subcommand`, () => {
      for (const sub of subs) {
        const help = helpOf(group, sub);
        expect(help, `${group} ${sub}`).toContain('Examples:');
        expect(help, `${group} ${sub}`).toContain(`synapse ${group} ${sub}`);
      }
    });
  }

  it('has an example for trace', () => {
    expect(helpOf('trace')).toContain('Examples:\n  synapse trace 1a2b3c4d');
  });
});
