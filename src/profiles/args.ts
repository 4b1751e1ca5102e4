import type { Profile } from './types.js';

const isFlag = (token: string) => token.length > 1 && token.startsWith('-') && !/^-\d/.test(token);

/** `--flag=value` → `--flag`. */
const flagName = (token: string) => token.split('=', 1)[0]!;

/**
 * The profile's own args as groups: a flag with its value (`-c key=value`, `--flag=value`), or a
 * positional. A flag followed by a token that is not a flag takes it as its value.
 */
function groups(own: readonly string[]): string[][] {
  const out: string[][] = [];
  for (let i = 0; i < own.length; i++) {
    const token = own[i]!;
    const next = own[i + 1];
    if (isFlag(token) && !token.includes('=') && next !== undefined && !isFlag(next)) {
      out.push([token, next]);
      i++;
    } else out.push([token]);
  }
  return out;
}

/** The flags the user passes (before a bare `--`, after which every token is a positional). */
function userFlags(user: readonly string[], canonical: (name: string) => string): Set<string> {
  const names = new Set<string>();
  for (const token of user) {
    if (token === '--') break;
    if (isFlag(token)) names.add(canonical(flagName(token)));
  }
  return names;
}

/**
 * The CLI's arguments: `own` (the profile's, or the auto-approve flag) and then the user's
 * `-- <cli args>`, with every flag of `own` that the user passes too left out, so that it is
 * passed once, as the user wrote it (`--flag`, `--flag=value` or `--flag value`, or an alias of
 * it): Codex exits 2 on a flag given twice. Flags the CLI takes many times (`-c key=value`) are
 * kept. Only flags after the last positional of `own` count: `node --max-old-space-size=32
 * script.js` passes node's flags, and the user's args go to the script.
 */
export function mergeArgs(
  profile: Pick<Profile, 'repeatableFlags' | 'flagAliases'>,
  own: readonly string[],
  user: readonly string[],
): { args: string[]; dropped: string[] } {
  const aliasOf = new Map<string, string>();
  for (const names of profile.flagAliases ?? []) for (const n of names) aliasOf.set(n, names[0]!);
  const canonical = (name: string) => aliasOf.get(name) ?? name;
  const repeatable = new Set((profile.repeatableFlags ?? []).map(canonical));
  const passed = userFlags(user, canonical);
  const all = groups(own);
  const lastPositional = all.findLastIndex((g) => !isFlag(g[0]!));
  const kept: string[] = [];
  const dropped: string[] = [];
  all.forEach((g, i) => {
    const name = canonical(flagName(g[0]!));
    const duplicate = i > lastPositional && isFlag(g[0]!) && !repeatable.has(name) && passed.has(name);
    (duplicate ? dropped : kept).push(...g);
  });
  return { args: [...kept, ...user], dropped };
}

/**
 * Whether these CLI args resume a conversation (then the start-up instruction is skipped): an
 * arg equal to one of `flags`, or, for a flag starting with `-`, `--flag=value`, as the original
 * checks. `flags` are the settings' `resume_flags.<profile>` when set, else the profile's own.
 */
export function isResuming(flags: readonly string[], cliArgs: readonly string[]): boolean {
  return cliArgs.some((a) => flags.includes(a) || flags.some((f) => f.startsWith('-') && a.startsWith(`${f}=`)));
}
