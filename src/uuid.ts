import fs from 'node:fs';
import { nodeCrypto } from './require-cjs.js';

/**
 * A random (version 4) UUID, from /dev/urandom where there is one, else node:crypto's. Not
 * node:crypto's first: an agent makes one before it spawns its CLI (its conversation id), where
 * loading node:crypto cost ~5 ms of that wait (guides/agent-runtime.md, Start-up), and one for
 * its start-up instruction's task, which would keep node:crypto (~0.8 MiB) in an idle agent.
 */
export function randomUuid(): string {
  const b = Buffer.alloc(16);
  try {
    const fd = fs.openSync('/dev/urandom', 'r');
    try {
      if (fs.readSync(fd, b, 0, 16, null) !== 16) return nodeCrypto().randomUUID();
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return nodeCrypto().randomUUID();
  }
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
