import type { Command } from 'commander';
import { printJson, println, processIo, type CommandIo } from '../io.js';

/** `synapse auth generate`: a new random API key on stdout (nothing is stored). */
async function authGenerate(flags: { json?: boolean }, io: CommandIo): Promise<void> {
  const { generateApiKey } = await import('../../config/auth-keys.js');
  const key = generateApiKey();
  if (flags.json) return printJson(io, { key });
  println(io, key);
}

export function registerAuthCommands(program: Command): void {
  const auth = program
    .command('auth')
    .description('API keys for agents (SYNAPSE_AUTH_ENABLED, SYNAPSE_API_KEYS, SYNAPSE_ADMIN_KEY)')
    .addHelpText('after', '\nExample:\n  synapse auth generate\n\nSee guides/security.md.');

  auth
    .command('generate')
    .description('Print a new random API key (32 random bytes); put it in SYNAPSE_API_KEYS or SYNAPSE_ADMIN_KEY')
    .option('--json', 'print {"key": …}')
    .addHelpText('after', '\nExamples:\n  synapse auth generate\n  export SYNAPSE_AUTH_ENABLED=true SYNAPSE_API_KEYS="$(synapse auth generate)"')
    .action(async (flags: { json?: boolean }) => {
      await authGenerate(flags, processIo());
    });
}
