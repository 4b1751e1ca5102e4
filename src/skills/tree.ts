import fs from 'node:fs';
import path from 'node:path';

function files(dir: string, ignore: ReadonlySet<string>): string[] {
  return (fs.readdirSync(dir, { recursive: true }) as string[]).filter((f) => !ignore.has(path.basename(f)) && fs.statSync(path.join(dir, f)).isFile()).sort();
}

/** Whether folder `b` holds the same files with the same bytes as `a` (names in `ignore` are skipped on both sides). */
export function sameTree(a: string, b: string, ignore: ReadonlySet<string> = new Set()): boolean {
  if (!fs.existsSync(b)) return false;
  const left = files(a, ignore);
  const right = files(b, ignore);
  if (left.length !== right.length || left.some((f, i) => f !== right[i])) return false;
  return left.every((f) => fs.readFileSync(path.join(a, f)).equals(fs.readFileSync(path.join(b, f))));
}
