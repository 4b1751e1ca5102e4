import { envVarSpec, ENV_VARS } from '../../config/env-vars.js';
import { APPROVAL_MODES, FLOWS, LIST_COLUMNS, TABLE_COLUMNS } from '../../config/keys.js';
import { readSettingsFileRaw, settingsFile, SCOPES, type Scope } from '../../config/settings-file.js';
import { resolveSettings } from '../../config/settings.js';
import { ExitRequest } from '../exit.js';
import { println, type CommandIo } from '../io.js';
import { configSet } from './config-cli.js';

const PROFILES = ['claude', 'codex', 'gemini', 'opencode', 'copilot', 'echo'];

/** Every key the editor offers: the schema's, one per profile instruction, one per variable a person sets. */
function editableKeys(): string[] {
  return [
    'approvalMode',
    'a2a.flow',
    'list.columns',
    'instructions.default',
    ...PROFILES.map((p) => `instructions.${p}`),
    'spawn.keepIdle',
    'spawn.keepTurns',
    'hooks.on_idle',
    'hooks.on_task_completed',
    ...Object.entries(ENV_VARS)
      .filter(([name, spec]) => !('setBySynapse' in spec) && name !== 'SYNAPSE_PORT_RANGE_')
      .map(([name]) => `env.${name}`),
  ];
}

/** The value of `key` in one scope's file, as text ('' when unset). */
function fileValue(data: Record<string, unknown>, key: string): string {
  const [head, ...rest] = key.split('.');
  const v = rest.length === 0 ? data[head!] : (data[head!] as Record<string, unknown> | undefined)?.[rest.join('.')];
  if (v === undefined) return '';
  if (Array.isArray(v)) return v.join(',');
  return typeof v === 'string' ? v : JSON.stringify(v);
}

const UNSET = '(remove from this file)';

/** Asks for the new value the way the key's type allows: a list to pick from, checkboxes, or text. */
async function askValue(key: string, current: string): Promise<string> {
  const { checkbox, input, select } = await import('@inquirer/prompts');
  const pick = async (values: readonly string[]) => {
    const v = await select({ message: `${key}`, choices: [...values, UNSET].map((value) => ({ value })), ...(current ? { default: current } : {}) });
    return v === UNSET ? '' : v;
  };
  if (key === 'approvalMode') return pick(APPROVAL_MODES);
  if (key === 'a2a.flow') return pick(FLOWS);
  if (key === 'list.columns') {
    const chosen: readonly string[] = current ? current.split(',') : TABLE_COLUMNS;
    const picked = await checkbox({
      message: 'list.columns (none = remove)',
      choices: LIST_COLUMNS.map((value) => ({ value, checked: chosen.includes(value) })),
    });
    return picked.join(',');
  }
  const spec = key.startsWith('env.') ? envVarSpec(key.slice(4)) : undefined;
  if (spec?.kind === 'flag') return pick(['true', 'false']);
  return input({ message: `${key} (empty removes it)`, default: current });
}

/**
 * `synapse config` on a terminal: pick a scope, a key (type to filter; the merged value and its
 * source are shown), then a value; the file is checked before it is written, as `config set`.
 */
export async function configInteractive(io: CommandIo): Promise<void> {
  try {
    await editLoop(io);
  } catch (err) {
    // Ctrl-C or a closed terminal: stop where we are (every change made so far is written).
    if ((err as Error).name === 'ExitPromptError') throw new ExitRequest(130);
    throw err;
  }
}

async function editLoop(io: CommandIo): Promise<void> {
  const { confirm, search, select } = await import('@inquirer/prompts');
  for (;;) {
    const scope = await select<Scope>({
      message: 'Which settings file?',
      choices: SCOPES.map((s) => ({ value: s, name: `${s.padEnd(8)}${settingsFile(s, io.cwd, io.env)}` })),
      default: 'project',
    });
    const merged = resolveSettings(io.cwd, io.env).entries;
    const describe = (key: string) => {
      const e = merged.get(key);
      return e ? `${key} = ${JSON.stringify(e.value)} (${e.origin.source})` : key;
    };
    const key = await search<string>({
      message: 'Which key? (type to filter)',
      source: (term) =>
        editableKeys()
          .filter((k) => !term || k.toLowerCase().includes(term.toLowerCase()))
          .map((k) => ({ value: k, name: describe(k) })),
    });
    const value = await askValue(key, fileValue(readSettingsFileRaw(scope, io.cwd, io.env), key));
    try {
      configSet(key, value, { scope }, io);
    } catch (err) {
      println(io, `not changed: ${(err as Error).message}`);
    }
    if (!(await confirm({ message: 'Change another key?', default: false }))) return;
  }
}
