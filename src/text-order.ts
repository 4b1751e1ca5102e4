/**
 * Orders text without ICU. `localeCompare` makes V8 build an ICU collator on its first call:
 * ~3 MiB of RSS for the rest of the process and 8-17 ms on this machine (guides/agent-runtime.md,
 * "Memory"). An agent sorts the registry when it claims a port beside other agents, and `synapse
 * send` and `list` sort it on every run, so each paid both. Ids, aliases and keys are ASCII in
 * practice; this order gives them what `localeCompare(b, 'en', { numeric: true })` gave.
 */

const RUNS = /\d+|\D+/g;
const isDigits = (s: string) => s.charCodeAt(0) >= 48 && s.charCodeAt(0) <= 57;

/** Code-unit order: for text that sorts as it is written (ISO times, keys). */
export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Natural order: runs of digits by their value (`agent-9` before `agent-10`), other runs without
 * regard to case (`alpha` before `Beta`); ties by code unit, so the order is total.
 */
export function naturalCompare(a: string, b: string): number {
  if (a === b) return 0;
  const x = a.match(RUNS) ?? [];
  const y = b.match(RUNS) ?? [];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const p = x[i]!;
    const q = y[i]!;
    if (p === q) continue;
    const byRun = isDigits(p) && isDigits(q) ? compareNumbers(p, q) : compareCodeUnits(p.toLowerCase(), q.toLowerCase());
    if (byRun !== 0) return byRun;
  }
  return x.length - y.length || compareCodeUnits(a, b);
}

/** Two runs of digits by value, however long: fewer significant digits is smaller. */
function compareNumbers(p: string, q: string): number {
  const s = p.replace(/^0+(?=\d)/, '');
  const t = q.replace(/^0+(?=\d)/, '');
  return s.length - t.length || compareCodeUnits(s, t);
}
