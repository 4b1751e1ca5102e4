import { numberSetting } from './env-number.js';
import { originListSetting } from './env-origins.js';
import { ENV_VARS, type EnvVarName, type EnvVarSpec } from './env-vars.js';
import type { Env } from './env.js';

/** What reading a variable of each kind gives. */
export type EnvValue<S> = S extends { kind: 'number'; default: number }
  ? number
  : S extends { kind: 'number' }
    ? number | undefined
    : S extends { kind: 'flag' }
      ? boolean
      : S extends { kind: 'origins' }
        ? string[]
        : string | undefined;

const FALSE_WORDS = new Set(['0', 'false', 'no', 'off', 'disabled']);

/** A switch: unset or blank keeps the default; anything but an explicit "off" word is on. */
function envFlag(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (raw === undefined || raw === '') return fallback;
  return !FALSE_WORDS.has(raw);
}

function read(env: Env, name: string, spec: EnvVarSpec): unknown {
  switch (spec.kind) {
    case 'number':
      return numberSetting(env, name, spec);
    case 'flag':
      return spec.strict ? env[name]?.trim() === '1' || (env[name] === undefined && spec.default) : envFlag(env, name, spec.default);
    case 'origins':
      return originListSetting(env, name);
    case 'text': {
      const raw = env[name];
      return raw === undefined || raw === '' ? undefined : raw;
    }
  }
}

/**
 * The one way to read a `SYNAPSE_*` variable: typed, defaulted and checked by its entry in
 * `ENV_VARS` (a number that does not parse is an `invalid_input` error naming the variable).
 * `env` is the effective environment: the process's, over the settings files' `env` blocks.
 */
export function envSetting<N extends EnvVarName>(env: Env, name: N): EnvValue<(typeof ENV_VARS)[N]> {
  return read(env, name, ENV_VARS[name]) as EnvValue<(typeof ENV_VARS)[N]>;
}

/** Checks one value as its variable would be read; throws the same error `envSetting` would. */
export function checkEnvValue(name: string, spec: EnvVarSpec, value: string): void {
  read({ [name]: value }, name, spec);
}

/** `SYNAPSE_PORT_RANGE_<TYPE>=first-last`, or null when unset or not a valid range. */
export function portRangeSetting(env: Env, type: string): { first: number; last: number } | null {
  const raw = env[`SYNAPSE_PORT_RANGE_${type.toUpperCase()}`];
  const m = raw ? /^(\d+)-(\d+)$/.exec(raw.trim()) : null;
  if (!m) return null;
  const first = Number(m[1]);
  const last = Number(m[2]);
  return first >= 1 && last <= 65535 && first <= last ? { first, last } : null;
}
