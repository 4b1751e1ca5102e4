import { SynapseError, type ErrorCode } from '../errors.js';

export interface PrefixCandidate {
  id: string;
  label: string;
}

/**
 * Picks the single id a user meant by a (possibly shortened) id. An exact match wins;
 * otherwise exactly one candidate must start with the prefix. Errors list what matched,
 * so the user can paste a longer prefix.
 */
export function pickByPrefix(
  prefix: string,
  candidates: PrefixCandidate[],
  opts: { what: string; notFound: ErrorCode; ambiguous: ErrorCode; /** All matches, when `candidates` was cut short. */ total?: number },
): string {
  const exact = candidates.find((c) => c.id === prefix);
  if (exact) return exact.id;
  const matches = candidates.filter((c) => c.id.startsWith(prefix));
  if (matches.length === 1) return matches[0]!.id;
  if (matches.length === 0) {
    throw new SynapseError(opts.notFound, `no ${opts.what} matches '${prefix}' (see the list command for ids)`, { prefix });
  }
  const total = Math.max(opts.total ?? 0, matches.length);
  const shown = matches.slice(0, 10).map((m) => `  ${m.id}  ${m.label}`);
  const more = total > 10 ? `\n  … and ${total - 10} more` : '';
  throw new SynapseError(opts.ambiguous, `'${prefix}' matches ${total} ${opts.what}s; use a longer prefix:\n${shown.join('\n')}${more}`, {
    prefix,
    matches: matches.slice(0, 10).map((m) => m.id),
  });
}
