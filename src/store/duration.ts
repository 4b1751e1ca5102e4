import { SynapseError } from '../errors.js';

const UNIT_MS: Record<string, number> = {
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

/**
 * Parses `600`, `90s`, `10m`, `2h`, `7d`, `1w` (or `1h30m`) into milliseconds. A bare number
 * is read in `bareUnit` (seconds for TTLs, days for ages), so `--ttl 600` means ten minutes.
 */
export function parseDuration(input: string, bareUnit: keyof typeof UNIT_MS = 's', what = 'duration'): number {
  const text = input.trim().toLowerCase();
  if (/^\d+(\.\d+)?$/.test(text)) return finite(Number(text) * (UNIT_MS[bareUnit] ?? 1000), input, what);
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d|w)/g)];
  const consumed = parts.map((p) => p[0]).join('');
  if (parts.length === 0 || consumed !== text) {
    throw new SynapseError('usage', `invalid ${what} '${input}': use a number with a unit, e.g. 30s, 10m, 2h, 7d, 1w`, { value: input });
  }
  let total = 0;
  for (const p of parts) total += Number(p[1]) * (UNIT_MS[p[2] ?? 's'] ?? 1000);
  return finite(total, input, what);
}

function finite(ms: number, input: string, what: string): number {
  if (!Number.isFinite(ms) || ms <= 0) {
    throw new SynapseError('usage', `invalid ${what} '${input}': must be greater than zero`, { value: input });
  }
  return Math.round(ms);
}

/** `90000` → `1m30s`; for messages and tables. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))}ms`;
  let s = Math.round(ms / 1000);
  const out: string[] = [];
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3_600],
    ['m', 60],
  ] as const) {
    if (s >= size) {
      out.push(`${Math.floor(s / size)}${unit}`);
      s %= size;
    }
  }
  if (s > 0 || out.length === 0) out.push(`${s}s`);
  return out.join('');
}
