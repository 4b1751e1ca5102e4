import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Why a small tmpfs cannot be mounted here (not root, no permission in this container), or null when it can. */
export function tmpfsRefusal(): string | null {
  if (process.platform !== 'linux') return `tmpfs mounts are tested on Linux only (this is ${process.platform})`;
  if (process.getuid?.() !== 0) return 'mounting a tmpfs needs root (run the suite as root, e.g. in its container)';
  const probe = fs.mkdtempSync(path.join(os.tmpdir(), 'synapse-tmpfs-probe-'));
  try {
    const r = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', probe], { encoding: 'utf8' });
    if (r.error) return `cannot run mount: ${r.error.message}`;
    if (r.status !== 0) return `mount refused a tmpfs: ${r.stderr.trim() || `exit ${r.status}`}`;
    spawnSync('umount', [probe]);
    return null;
  } finally {
    fs.rmSync(probe, { recursive: true, force: true });
  }
}

/** Mounts a tmpfs of `size` (e.g. `1m`) on `dir`, created 0700 if missing. Throws with mount's message. */
export function mountTmpfs(dir: string, size: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0700`, 'tmpfs', dir], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`mount tmpfs on ${dir}: ${r.stderr || r.error?.message}`);
}

/** Unmounts `dir` (lazily when something still holds it); never throws. */
export function unmount(dir: string): void {
  if (spawnSync('umount', [dir]).status !== 0) spawnSync('umount', ['-l', dir]);
}

/** Writes `file` until the file system says ENOSPC; returns the bytes written. */
export function fillDisk(file: string): number {
  const fd = fs.openSync(file, 'w');
  let written = 0;
  try {
    for (const size of [65_536, 4096, 512, 1]) {
      const chunk = Buffer.alloc(size, 0x61);
      for (;;) {
        try {
          written += fs.writeSync(fd, chunk);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'ENOSPC') break;
          throw err;
        }
      }
    }
  } finally {
    fs.closeSync(fd);
  }
  return written;
}
