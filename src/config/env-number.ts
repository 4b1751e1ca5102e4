import { SynapseError } from '../errors.js';
import type { Env } from './env.js';

export interface NumberRule {
  /** What the number counts, for the error message ("bytes", "seconds"); none for a bare number. */
  unit?: string;
  /** Only whole numbers. */
  integer?: boolean;
  min?: number;
  max?: number;
}

function expected(rule: NumberRule): string {
  const what = `a ${rule.integer ? 'whole ' : ''}number${rule.unit ? ` of ${rule.unit}` : ''}`;
  if (rule.min !== undefined && rule.max !== undefined) return `${what} from ${rule.min} to ${rule.max}`;
  if (rule.min !== undefined) return `${what} (at least ${rule.min})`;
  if (rule.max !== undefined) return `${what} (at most ${rule.max})`;
  return what;
}

/**
 * A numeric setting from the environment. Unset or blank gives `default`; anything else must be
 * a finite number that fits the rule, or it is an `invalid_input` error naming the variable and
 * what it got (`SYNAPSE_X must be a whole number of bytes (at least 0), got "100kb"`), never a
 * silent NaN or fallback.
 */
export function numberSetting(env: Env, name: string, rule: NumberRule & { default: number }): number;
export function numberSetting(env: Env, name: string, rule: NumberRule): number | undefined;
export function numberSetting(env: Env, name: string, rule: NumberRule & { default?: number }): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return rule.default;
  const n = Number(raw.trim());
  const fits =
    Number.isFinite(n) && (!rule.integer || Number.isInteger(n)) && (rule.min === undefined || n >= rule.min) && (rule.max === undefined || n <= rule.max);
  if (!fits) throw new SynapseError('invalid_input', `${name} must be ${expected(rule)}, got "${raw}"`);
  return n;
}
