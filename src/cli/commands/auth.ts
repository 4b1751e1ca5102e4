import type { Command } from 'commander';
import { printJson, println, processIo, type CommandIo } from '../io.js';

/** `synapse auth generate`: a new random API key on stdout (nothing is stored). */
async function authGenerate(flags: { json?: boolean; count?: string }, io: CommandIo): Promise<void> {
  const { generateApiKey } = await import('../../config/auth-keys.js');
  const { SynapseError } = await import('../../errors.js');
  const count = Number(flags.count ?? '1');
  if (!Number.isInteger(count) || count < 1 || count > 100)
    throw new SynapseError('usage', `--count must be a whole number from 1 to 100, not "${flags.count}"`);
  const keys = Array.from({ length: count }, () => generateApiKey());
  if (flags.json) return printJson(io, count === 1 ? { key: keys[0] } : { keys });
  for (const key of keys) println(io, key);
}

/** `synapse auth setup`: an API key and an admin key, and how to use them (nothing is stored). */
async function authSetup(flags: { json?: boolean }, io: CommandIo): Promise<void> {
  const { generateApiKey } = await import('../../config/auth-keys.js');
  const apiKey = generateApiKey();
  const adminKey = generateApiKey();
  if (flags.json)
    return printJson(io, {
      api_key: apiKey,
      admin_key: adminKey,
      env: { SYNAPSE_AUTH_ENABLED: 'true', SYNAPSE_API_KEYS: apiKey, SYNAPSE_ADMIN_KEY: adminKey },
    });
  const rule = '='.repeat(60);
  const lines = [
    rule,
    'Synapse A2A authentication setup',
    rule,
    '',
    'Generated keys:',
    `  API key:   ${apiKey}`,
    `  Admin key: ${adminKey}`,
    '',
    'Add these to your shell configuration (~/.bashrc, ~/.zshrc):',
    '',
    '  export SYNAPSE_AUTH_ENABLED=true',
    `  export SYNAPSE_API_KEYS=${apiKey}`,
    `  export SYNAPSE_ADMIN_KEY=${adminKey}`,
    '',
    'Or run with them in the environment:',
    '',
    `  SYNAPSE_AUTH_ENABLED=true SYNAPSE_API_KEYS=${apiKey} SYNAPSE_ADMIN_KEY=${adminKey} synapse claude`,
    '',
    'Client usage (X-API-Key or Authorization: Bearer):',
    '',
    `  curl -H 'X-API-Key: ${apiKey}' http://127.0.0.1:8100/status`,
    '',
    rule,
    'Keep these keys safe: they are not stored anywhere and cannot be recovered.',
    rule,
  ];
  for (const line of lines) println(io, line);
}

export function registerAuthCommands(program: Command): void {
  const auth = program
    .command('auth')
    .description('API keys for agents (SYNAPSE_AUTH_ENABLED, SYNAPSE_API_KEYS, SYNAPSE_ADMIN_KEY)')
    .addHelpText('after', '\nExample:\n  synapse auth generate\n\nSee guides/security.md.');

  auth
    .command('generate')
    .alias('generate-key')
    .description('Print a new random API key (32 random bytes); put it in SYNAPSE_API_KEYS or SYNAPSE_ADMIN_KEY')
    .option('-n, --count <n>', "print this many keys, one per line (the original's generate-key -n)", '1')
    .option('--json', 'print {"key": …} ({"keys": […]} with --count above 1)')
    .addHelpText(
      'after',
      '\nExamples:\n  synapse auth generate\n  synapse auth generate-key -n 3        the original\'s name\n  export SYNAPSE_AUTH_ENABLED=true SYNAPSE_API_KEYS="$(synapse auth generate)"',
    )
    .action(async (flags: { json?: boolean; count?: string }) => {
      await authGenerate(flags, processIo());
    });

  auth
    .command('setup')
    .description('Print a new API key and admin key with the variables and a curl line that use them (nothing is stored)')
    .option('--json', 'print {api_key, admin_key, env} as JSON')
    .addHelpText('after', '\nExamples:\n  synapse auth setup\n  synapse auth setup --json | jq -r .api_key')
    .action(async (flags: { json?: boolean }) => {
      await authSetup(flags, processIo());
    });
}
