import fs from 'node:fs';

/** What Linux says of one process in `/proc/<pid>/stat` (see proc(5)). */
export interface ProcStat {
  /** Field 3: R, S, D, T, … ; `Z` a zombie (exited, not yet reaped by its parent), `X` dead. */
  state: string;
  /** Field 4. */
  ppid: number;
  /** Field 22: when the process started, in clock ticks since boot. A reused pid has another. */
  startTicks: number;
}

/**
 * `/proc/<pid>/stat` of one process, or null where there is none to read: no /proc (macOS), the
 * pid is gone, or /proc hides other users' processes (`hidepid`). One small read, no process
 * spawned: cheap enough for every registry scan.
 */
export function readProcStat(pid: number): ProcStat | null {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    // No /proc, or no such process, or hidden: the caller decides what that means.
    return null;
  }
  // The command name (field 2) is in parentheses and may hold spaces and ')': fields 3… start
  // after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ppid = Number(fields[1]);
  const startTicks = Number(fields[19]);
  if (!fields[0] || !Number.isInteger(ppid) || !Number.isInteger(startTicks)) return null;
  return { state: fields[0], ppid, startTicks };
}
