/**
 * The lines of `synapse shell`, parsed: `@codex review this`, `@codex,gemini …`, `@all …`, a
 * command (`/to codex`, `help`, `exit`), or plain text for the default target. Pure, so the
 * grammar is tested without a terminal.
 */

export type ShellLine =
  | { kind: 'empty' }
  | { kind: 'command'; name: 'help' | 'list' | 'to' | 'exit'; arg: string | null }
  | { kind: 'unknown-command'; name: string }
  | { kind: 'send'; targets: string[] | 'all'; text: string }
  | { kind: 'plain'; text: string }
  | { kind: 'bad'; reason: string };

/** Agent ids (`synapse-claude-8100`), type-ports (`claude-8100`), names and types. */
const TARGET = /^[A-Za-z0-9][\w.-]*$/;
const COMMANDS: Record<string, 'help' | 'list' | 'to' | 'exit'> = {
  help: 'help',
  '?': 'help',
  list: 'list',
  agents: 'list',
  to: 'to',
  exit: 'exit',
  quit: 'exit',
};

export function parseShellLine(raw: string): ShellLine {
  const line = raw.trim();
  if (line === '') return { kind: 'empty' };
  // `exit`, `quit` and `help` bare, as the original's shell; everything else as `/command`.
  if (/^(exit|quit|help)$/i.test(line)) return { kind: 'command', name: COMMANDS[line.toLowerCase()]!, arg: null };
  if (line.startsWith('/')) {
    const [word = '', ...rest] = line.slice(1).split(/\s+/);
    const name = COMMANDS[word.toLowerCase()];
    if (!name) return { kind: 'unknown-command', name: word };
    return { kind: 'command', name, arg: rest.join(' ') || null };
  }
  if (!line.startsWith('@')) return { kind: 'plain', text: line };
  const match = /^@(\S+)(?:\s+([\s\S]*))?$/.exec(line);
  const list = match?.[1] ?? '';
  // The original's `@agent --wait message`: the shell always shows the answer, so it is dropped.
  const text = (match?.[2] ?? '').replace(/^--wait\s+/, '').trim();
  const names = list.split(',').filter(Boolean);
  if (names.length === 0) return { kind: 'bad', reason: 'name an agent after @, e.g. @codex review this' };
  const badName = names.find((n) => n.toLowerCase() !== 'all' && !TARGET.test(n));
  if (badName !== undefined) return { kind: 'bad', reason: `"${badName}" is not an agent name (letters, digits, . _ -)` };
  if (text === '') return { kind: 'bad', reason: `nothing to send: @${list} <message>` };
  if (names.some((n) => n.toLowerCase() === 'all')) {
    if (names.length > 1) return { kind: 'bad', reason: '@all already means every agent; leave the other names out' };
    return { kind: 'send', targets: 'all', text };
  }
  return { kind: 'send', targets: [...new Set(names)], text };
}

/**
 * readline's completer: the `@name` being typed (the last of a comma list) completed from the
 * live agents' names, ids and types, and `all`; commands after `/`.
 */
export function completeShellLine(line: string, names: readonly string[]): [string[], string] {
  const at = /^@((?:[^\s,]*,)*)([^\s,]*)$/.exec(line);
  if (at) {
    const partial = at[2] ?? '';
    const hits = [...new Set([...names, 'all'])].filter((n) => n.toLowerCase().startsWith(partial.toLowerCase())).sort();
    return [hits, partial];
  }
  if (/^\/\w*$/.test(line)) {
    const hits = ['/help', '/list', '/to', '/exit'].filter((c) => c.startsWith(line));
    return [hits, line];
  }
  return [[], line];
}
