import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const PRELOAD = fileURLToPath(new URL('./record-pty-input.mjs', import.meta.url));
const PASTE_START = Buffer.from('\x1b[200~');
const PASTE_END = Buffer.from('\x1b[201~');

/** Environment that makes the echo agent behind the PTY record every input byte to `file`. */
export function recordingEnv(env: NodeJS.ProcessEnv, file: string): NodeJS.ProcessEnv {
  return { ...env, PTY_INPUT_LOG: file, NODE_OPTIONS: `${env.NODE_OPTIONS ?? ''} --import=${PRELOAD}`.trim() };
}

export function readBytes(file: string): Buffer {
  return fs.existsSync(file) ? fs.readFileSync(file) : Buffer.alloc(0);
}

/** The input as Synapse wrote it: the pastes (their inner bytes) and the keys pressed between them. */
export interface PtyInput {
  pastes: Buffer[];
  /** Every byte outside a paste, in order. */
  keys: Buffer;
}

/** Splits the recorded input into bracketed pastes and the bytes outside them; throws on a nested or unclosed paste. */
export function splitInput(bytes: Buffer): PtyInput {
  const pastes: Buffer[] = [];
  const keys: number[] = [];
  let i = 0;
  while (i < bytes.length) {
    if (bytes.subarray(i, i + PASTE_START.length).equals(PASTE_START)) {
      const end = bytes.indexOf(PASTE_END, i + PASTE_START.length);
      if (end === -1) throw new Error(`an unclosed paste at byte ${i}`);
      const inner = bytes.subarray(i + PASTE_START.length, end);
      if (inner.includes(PASTE_START)) throw new Error(`a paste opened inside a paste at byte ${i}`);
      pastes.push(inner);
      i = end + PASTE_END.length;
      continue;
    }
    keys.push(bytes[i]!);
    i++;
  }
  return { pastes, keys: Buffer.from(keys) };
}

/**
 * What may be inside a paste of peer text: printable UTF-8, newline and tab. Returns the
 * offending bytes found (empty when clean): C0 controls (ESC, ^C, ^D, ^Z, NUL, CR …), DEL, C1
 * controls (U+0080–U+009F as UTF-8), surrogates encoded as UTF-8 (CESU), invalid UTF-8.
 */
export function forbiddenInPaste(paste: Buffer): string[] {
  const bad: string[] = [];
  for (let i = 0; i < paste.length; i++) {
    const b = paste[i]!;
    if ((b < 0x20 && b !== 0x0a && b !== 0x09) || b === 0x7f) bad.push(`0x${b.toString(16).padStart(2, '0')} at ${i}`);
    if (b === 0xc2 && paste[i + 1]! >= 0x80 && paste[i + 1]! <= 0x9f) bad.push(`C1 U+00${paste[i + 1]!.toString(16)} at ${i}`);
    if (b === 0xed && paste[i + 1]! >= 0xa0 && paste[i + 1]! <= 0xbf) bad.push(`a UTF-8-encoded surrogate at ${i}`);
  }
  const text = paste.toString('utf8');
  if (Buffer.from(text, 'utf8').compare(paste) !== 0) bad.push('invalid UTF-8');
  return bad;
}

/** The keys Synapse itself may press outside a paste: the submit key (CR) and the clear-input key (^U). */
export function foreignKeys(keys: Buffer): string[] {
  return [...keys].filter((b) => b !== 0x0d && b !== 0x15).map((b) => `0x${b.toString(16).padStart(2, '0')}`);
}

export function logFile(home: string, name: string): string {
  return path.join(home, `${name}.pty-input`);
}
