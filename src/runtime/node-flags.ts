/**
 * The flags node was started with, spelt with dashes: its command line's, and NODE_OPTIONS'
 * (which execArgv leaves out). Node refuses the compilers' own flags in NODE_OPTIONS, but not
 * `--jitless`.
 */
export function nodeFlags(execArgv: readonly string[] = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? ''): string[] {
  // V8 reads `--no_opt` as `--no-opt`: only the name's underscores, not a value's.
  return [...execArgv, ...nodeOptions.split(/\s+/)].filter((a) => a.startsWith('--')).map((a) => a.replace(/^[^=]*/, (name) => name.replace(/_/g, '-')));
}
