import { envVarSpec } from '../../config/env-vars.js';
import { LIST_COLUMNS, settingKey } from '../../config/keys.js';
import type { SettingsFile } from '../../config/schema.js';
import { readSettingsFile, readSettingsFileRaw, SCOPES, settingsFile, writeSettingsFile, type Scope } from '../../config/settings-file.js';
import { resolveSettings, type Origin } from '../../config/settings.js';
import { projectTrustCheck } from '../../registry/project-trust.js';
import { SynapseError } from '../../errors.js';
import { redactUrl } from '../../redact.js';
import { printJson, println, type CommandIo } from '../io.js';
import { renderTable } from '../table.js';
import { compareCodeUnits } from '../../text-order.js';

export function parseScope(raw: string | undefined, allowed: readonly Scope[] = SCOPES): Scope | undefined {
  if (raw === undefined) return undefined;
  if (!allowed.includes(raw as Scope)) throw new SynapseError('usage', `--scope must be one of ${allowed.join(', ')}, got "${raw}"`);
  return raw as Scope;
}

/** Checks a key's name: a key of the schema or `env.SYNAPSE_*`; says what exists otherwise. */
export function checkKey(key: string): void {
  if (key.startsWith('env.')) {
    if (!envVarSpec(key.slice(4))) throw new SynapseError('usage', `${key.slice(4)} is not a Synapse variable (see synapse config show or guides/settings.md)`);
    return;
  }
  if (!settingKey(key) || key === 'instructions.<profile>' || key.split('.').some((p) => p === ''))
    throw new SynapseError(
      'usage',
      `"${key}" is not a setting: use approvalMode, a2a.flow, list.columns, instructions.<default|profile>, spawn.keepIdle, spawn.keepTurns, store.url, hooks.on_idle, hooks.on_task_completed or env.SYNAPSE_*`,
    );
}

const show = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));
/** A key's value as `config show` prints it: an API key or other secret only says that it is set. */
const shown = (key: string, value: unknown) =>
  key.startsWith('env.') && envVarSpec(key.slice(4))?.secret && key !== 'env.SYNAPSE_STORE_URL'
    ? '(set, hidden)'
    : key === 'store.url' || key === 'env.SYNAPSE_STORE_URL'
      ? redactUrl(String(value))
      : value;
const where = (o: Origin) => (o.file ? `${o.source} (${o.file})` : o.source);

/** `synapse config show`: the merged view with where each value came from, or one scope's file. */
export function configShow(flags: { scope?: string; json?: boolean }, io: CommandIo): void {
  const scope = parseScope(flags.scope);
  if (scope) {
    const read = readSettingsFile(scope, io.cwd, io.env);
    const file = settingsFile(scope, io.cwd, io.env);
    if (flags.json) return printJson(io, { scope, file, exists: read !== null, settings: read?.data ?? {} });
    println(io, `# ${scope}: ${file}${read ? '' : ' (absent)'}`);
    if (read) println(io, JSON.stringify(read.data, null, 2));
    return;
  }
  const { entries, withheld } = resolveSettings(io.cwd, io.env, projectTrustCheck(io.env));
  const keys = [...entries.keys()].sort((a, b) => Number(a.startsWith('env.')) - Number(b.startsWith('env.')) || compareCodeUnits(a, b));
  if (flags.json) {
    const out: Record<string, { value: unknown; source: string; file?: string; withheld?: { value: unknown; source: string; file: string } }> = {};
    for (const k of keys) {
      const e = entries.get(k)!;
      out[k] = { value: shown(k, e.value), source: e.origin.source, ...(e.origin.file ? { file: e.origin.file } : {}) };
    }
    // A key of the project's files that is not applied (not trusted): beside the value that applies instead.
    for (const w of withheld)
      (out[w.key] ??= { value: null, source: 'unset' }).withheld = { value: shown(w.key, w.value), source: w.origin.source, file: w.origin.file! };
    return printJson(io, out);
  }
  const rows = keys.map((k) => {
    const e = entries.get(k)!;
    return [k, show(shown(k, e.value)), where(e.origin)];
  });
  io.out(`${renderTable(['KEY', 'VALUE', 'SOURCE'], rows)}\n`);
  if (withheld.length)
    io.out(
      `\nNot applied: the project's env and hooks are not trusted (\`synapse trust --show\`, then \`synapse trust\`):\n${renderTable(
        ['KEY', 'VALUE', 'SOURCE'],
        withheld.map((w) => [w.key, show(shown(w.key, w.value)).replace(/[\p{Cc}\p{Cf}]/gu, '?'), where(w.origin)]),
      )}\n`,
    );
}

/** `synapse config get <key>`: the merged value (JSON for a list), or with `--json` where it came from. */
export function configGet(key: string, flags: { json?: boolean }, io: CommandIo): void {
  checkKey(key);
  const entry = resolveSettings(io.cwd, io.env, projectTrustCheck(io.env)).entries.get(key);
  if (flags.json)
    return printJson(io, {
      key,
      value: entry?.value ?? null,
      source: entry?.origin.source ?? 'unset',
      ...(entry?.origin.file ? { file: entry.origin.file } : {}),
    });
  if (entry === undefined) throw new SynapseError('not_found', `${key} is not set in any scope and has no default`);
  println(io, show(entry.value));
}

function parseValue(key: string, raw: string): unknown {
  if (key === 'list.columns') {
    const list: unknown = raw.trim().startsWith('[') ? JSON.parse(raw) : raw.split(',').map((c) => c.trim().toUpperCase());
    return list;
  }
  // A whole number stays a number (the file's schema checks it); anything else is kept to be refused by it.
  if (key === 'spawn.keepTurns' && /^\d+$/.test(raw.trim())) return Number(raw.trim());
  return raw;
}

/** Sets (or with an empty value removes) one key in one scope's file; the file is checked before it is written. */
export function setKey(data: SettingsFile, key: string, raw: string): SettingsFile {
  const next = structuredClone(data) as Record<string, unknown>;
  const [head, ...rest] = key.split('.');
  const value = parseValue(key, raw);
  if (rest.length === 0) {
    if (raw === '') delete next[head!];
    else next[head!] = value;
    return next;
  }
  const group = { ...((next[head!] as Record<string, unknown> | undefined) ?? {}) };
  if (raw === '') delete group[rest.join('.')];
  else group[rest.join('.')] = value;
  if (Object.keys(group).length === 0 && head !== 'env' && head !== 'hooks') delete next[head!];
  else next[head!] = group;
  return next;
}

/** `synapse config set <key> <value> [--scope]` (default scope: user). */
export function configSet(key: string, value: string, flags: { scope?: string; json?: boolean }, io: CommandIo): void {
  checkKey(key);
  const scope = parseScope(flags.scope) ?? 'user';
  if (key === 'list.columns' && value !== '' && !value.trim().startsWith('['))
    for (const c of value.split(','))
      if (!(LIST_COLUMNS as readonly string[]).includes(c.trim().toUpperCase()))
        throw new SynapseError('usage', `list.columns: "${c.trim()}" is not a column; use ${LIST_COLUMNS.join(', ')}`);
  const current = readSettingsFileRaw(scope, io.cwd, io.env) as SettingsFile;
  const file = writeSettingsFile(scope, io.cwd, io.env, setKey(current, key, value));
  // A store URL's password is never printed back.
  const echoed = key === 'store.url' || key === 'env.SYNAPSE_STORE_URL' ? redactUrl(value) : value;
  if (flags.json) return printJson(io, { key, value: value === '' ? null : parseValue(key, echoed), scope, file });
  println(io, value === '' ? `removed ${key} from ${file}` : `${key} = ${echoed} (${scope}: ${file})`);
  // A project's env and hooks apply once trusted, and a change is a new content to trust.
  if (scope !== 'user' && /^(env|hooks|store)\./.test(key) && resolveSettings(io.cwd, io.env, projectTrustCheck(io.env)).projectTrust?.trusted === false)
    io.err(`note: the project's env and hooks apply only once you trust them as they are now: \`synapse trust\`\n`);
}
