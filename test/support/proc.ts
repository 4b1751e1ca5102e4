import fs from 'node:fs';

// What a test reads of other processes in /proc (Linux).

/** A process's environment as it was exec'd (what its node read at start). */
export function environ(pid: number): Record<string, string> {
  const vars = fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean);
  return Object.fromEntries(vars.map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
}

/** A process whose parent is `pid` (an agent's CLI); throws when there is none. */
export function childOf(pid: number): number {
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // The command may hold spaces and parentheses: the fields after the last ')' are plain.
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) return Number(name);
    } catch {
      // gone meanwhile
    }
  }
  throw new Error(`no child of ${pid}`);
}
