import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { readProcStat } from './proc-stat.js';

/** The parent pid of a process, or null when it is gone or cannot be read. */
export type ParentOf = (pid: number) => number | null;

/** Linux: `/proc/<pid>/stat`, one small read, no process spawned. */
export const procParent: ParentOf = (pid) => {
  const ppid = readProcStat(pid)?.ppid;
  return ppid !== undefined && ppid > 0 ? ppid : null;
};

/** Anywhere with a POSIX `ps` (macOS, the BSDs, Linux without /proc): `ps -o ppid= -p <pid>`. */
const psParent: ParentOf = (pid) => {
  try {
    const out = execFileSync('ps', ['-o', 'ppid=', '-p', String(pid)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 2000 });
    const ppid = Number(out.trim());
    return Number.isInteger(ppid) && ppid > 0 ? ppid : null;
  } catch {
    // ps exits 1 for a pid that is gone.
    return null;
  }
};

/**
 * How to find a parent here: /proc where this system has it (Linux), else `ps` (macOS has no
 * /proc). `hasProc` is injectable so the fallback is tested on Linux too.
 */
export function parentReader(hasProc: boolean = fs.existsSync('/proc/self/stat')): ParentOf {
  return hasProc ? procParent : psParent;
}
