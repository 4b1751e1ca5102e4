/**
 * Generated HTTP requests for the fuzz run: random and schema-guided bodies, headers, paths and
 * methods. Everything comes from one seeded generator, so a seed reproduces a run. URLs inside
 * bodies (sender endpoints, webhook and push URLs) only ever point at a closed loopback port.
 */

export interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
}

/** mulberry32: small, fast, good enough to drive a fuzzer; the seed reproduces the sequence. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A closed loopback port: anything the agent is told to call back fails at once, on this machine. */
export const DEAD_URL = 'http://127.0.0.1:9/hook';

const NASTY_STRINGS = [
  '',
  ' ',
  '../../../../etc/passwd',
  '..%2f..%2fetc%2fpasswd',
  '%00',
  '\x00',
  '\x1b[201~\x03',
  '\ud800',
  '__proto__',
  'constructor',
  'null',
  '-1',
  '1e309',
  'NaN',
  '😀'.repeat(50),
  'a'.repeat(5000),
  '${7*7}',
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  'C:\\Windows\\system32',
  '/dev/zero',
  'file:///etc/passwd',
  DEAD_URL,
];

const ID_LIKE = ['00000000-0000-0000-0000-000000000000', 'x', '..', '%2e%2e', 'a'.repeat(300), 'synapse-echo-8190', '-1', '0'];

export class Gen {
  private readonly r: () => number;
  /** Task ids the agent has answered with, to aim later requests at real tasks. */
  readonly seenIds: string[] = [];

  constructor(seed: number) {
    this.r = rng(seed);
  }

  chance(p: number): boolean {
    return this.r() < p;
  }
  int(max: number): number {
    return Math.floor(this.r() * max);
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)]!;
  }

  string(): string {
    if (this.chance(0.4)) return this.pick(NASTY_STRINGS);
    const len = this.pick([0, 1, 3, 8, 20, 64, 300]);
    let s = '';
    for (let i = 0; i < len; i++) {
      const kind = this.int(10);
      s += String.fromCharCode(kind < 6 ? 32 + this.int(95) : kind < 8 ? this.int(32) : kind < 9 ? 0x80 + this.int(0x80) : 0x100 + this.int(0xfeff));
    }
    return s;
  }

  id(): string {
    if (this.seenIds.length > 0 && this.chance(0.5)) return this.pick(this.seenIds);
    return this.chance(0.5) ? this.pick(ID_LIKE) : this.string();
  }

  /** Any JSON value, nested up to `depth`. */
  value(depth = 3): unknown {
    const k = this.int(depth > 0 ? 9 : 6);
    switch (k) {
      case 0:
        return null;
      case 1:
        return this.chance(0.5);
      case 2:
        return this.pick([0, -1, 1, 5, 6, 1e21, -0.5, 2 ** 53 + 1, 2147483648]);
      case 3:
      case 4:
      case 5:
        return this.string();
      case 6:
        return Array.from({ length: this.int(4) }, () => this.value(depth - 1));
      default: {
        const o: Record<string, unknown> = {};
        for (let i = 0; i < this.int(5); i++)
          o[this.chance(0.2) ? this.pick(['__proto__', 'constructor', 'prototype']) : this.string().slice(0, 20)] = this.value(depth - 1);
        return o;
      }
    }
  }

  /** A valid-looking body, then, most of the time, broken in one or a few places. */
  mutate(template: unknown, depth = 0): unknown {
    if (depth > 6) return template;
    if (this.chance(0.08)) return this.value(2);
    if (Array.isArray(template)) {
      const out = template.map((v) => this.mutate(v, depth + 1));
      if (this.chance(0.1)) out.push(this.value(2));
      if (this.chance(0.1)) out.length = 0;
      return out;
    }
    if (template !== null && typeof template === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(template)) {
        if (this.chance(0.06)) continue; // a required field goes missing
        // Where the agent would call a URL, a bad value stays on this machine.
        out[k] = /url|endpoint/i.test(k) && this.chance(0.7) ? this.pick([DEAD_URL, this.string()]) : this.mutate(v, depth + 1);
      }
      if (this.chance(0.08)) out[this.string().slice(0, 20)] = this.value(1);
      return out;
    }
    if (typeof template === 'string') return this.chance(0.25) ? this.string() : template;
    if (typeof template === 'number') return this.chance(0.25) ? this.value(0) : template;
    return template;
  }
}
