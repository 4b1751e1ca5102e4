import { nodeCrypto } from '../require-cjs.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { agentStateDir, type Env } from '../config/paths.js';
import { requireCjs } from '../require-cjs.js';
import {
  parseClaudeLines,
  parseCodexLines,
  parseCopilotLines,
  parseGeminiLines,
  parseOpencodeMessage,
  type CodexState,
  type UsageLogKind,
  type UsageRecord,
} from '../profiles/usage-records.js';

/**
 * Where each CLI writes its usage records, read incrementally (issue 20 §3). A source hands out
 * each record once: `skip()` passes over what was written so far (it is not this task's),
 * `take()` returns what was written since. Files are read from the offset reached before, whole
 * lines only, so a line still being written is read next time. Nothing here throws for a missing,
 * unreadable or garbled file: it has no records.
 */
export interface UsageSource {
  skip(): void;
  /** `marker`: a piece of the delivered message, to tell this agent's file from another's in one directory. */
  take(marker: string | null): UsageRecord[];
}

export interface SourceContext {
  kind: UsageLogKind;
  cwd: string;
  env: Env;
  /** The CLI's conversation id where Synapse gave it one (Claude Code's `--session-id`). */
  sessionId: () => string | null;
  /** When the agent started: session files last changed before are another run's. */
  startedAtMs: number;
  now: () => number;
}

/** More new bytes than this in one file between two tasks are passed over unread. */
const MAX_GAP_BYTES = 4 * 1024 * 1024;
/** At most this much of one file is read for one task. */
const MAX_READ_BYTES = 16 * 1024 * 1024;

function home(env: Env): string {
  return env.HOME || os.homedir();
}

function listDir(dir: string): fs.Dirent[] {
  try {
    return fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

function mtime(file: string): number {
  return fs.statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? 0;
}

function firstLine(file: string): string {
  try {
    const fd = fs.openSync(file, 'r');
    try {
      const buf = Buffer.alloc(64 * 1024);
      const got = fs.readSync(fd, buf, 0, buf.length, 0);
      return buf.subarray(0, got).toString('utf8').split('\n', 1)[0] ?? '';
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return '';
  }
}

/** The first record of a session file, where Codex and Copilot CLI name the working directory. */
interface Header {
  cwd?: unknown;
  payload?: { cwd?: unknown };
  data?: { context?: { cwd?: unknown } };
}

/** A file's first JSON line names this working directory (`pick` reads it from the record). */
function headerCwd(file: string, pick: (rec: Header) => unknown): string | null {
  try {
    const cwd = pick(JSON.parse(firstLine(file)) as Header);
    return typeof cwd === 'string' ? path.resolve(cwd) : null;
  } catch {
    return null;
  }
}

/** Claude Code's project directory name: the working directory with every non-alphanumeric character as `-`. */
export function claudeProjectDir(cwd: string, env: Env): string {
  const base = env.CLAUDE_CONFIG_DIR || path.join(home(env), '.claude');
  return path.join(base, 'projects', path.resolve(cwd).replace(/[^A-Za-z0-9]/g, '-'));
}

/** The newest `levels`-deep dated directories of Codex's sessions tree (YYYY/MM/DD): today and yesterday. */
function newestDays(root: string): string[] {
  const sortedDirs = (dir: string) =>
    listDir(dir)
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
      .sort()
      .reverse();
  const out: string[] = [];
  for (const y of sortedDirs(root).slice(0, 2))
    for (const m of sortedDirs(path.join(root, y)).slice(0, 2))
      for (const d of sortedDirs(path.join(root, y, m)).slice(0, 2)) out.push(path.join(root, y, m, d));
  return out.sort().reverse().slice(0, 2);
}

/** The files a CLI may be writing this agent's records to. */
function candidateFiles(ctx: SourceContext, cwdOf: Map<string, string | null>): string[] {
  const cwd = path.resolve(ctx.cwd);
  const recent = (f: string) => mtime(f) >= ctx.startedAtMs - 1000;
  const sameCwd = (f: string, pick: (rec: Header) => unknown) => {
    if (!cwdOf.has(f)) cwdOf.set(f, headerCwd(f, pick));
    return cwdOf.get(f) === cwd;
  };
  switch (ctx.kind) {
    case 'claude': {
      const dir = claudeProjectDir(cwd, ctx.env);
      return listDir(dir)
        .filter((d) => d.isFile() && d.name.endsWith('.jsonl'))
        .map((d) => path.join(dir, d.name));
    }
    case 'echo': {
      const dir = ctx.env.ECHO_SESSION_DIR || path.join(agentStateDir(ctx.env), 'echo-sessions');
      return listDir(dir)
        .filter((d) => d.isFile() && d.name.endsWith('.usage.jsonl'))
        .map((d) => path.join(dir, d.name));
    }
    case 'codex': {
      const root = path.join(ctx.env.CODEX_HOME || path.join(home(ctx.env), '.codex'), 'sessions');
      return newestDays(root)
        .flatMap((day) => listDir(day).map((d) => path.join(day, d.name)))
        .filter((f) => /rollout-.*\.jsonl$/.test(f) && recent(f) && sameCwd(f, (r) => r.payload?.cwd ?? r.cwd));
    }
    case 'gemini': {
      const tmp = path.join(home(ctx.env), '.gemini', 'tmp');
      const hash = nodeCrypto().createHash('sha256').update(cwd).digest('hex');
      const dirs = listDir(tmp)
        .filter((d) => d.isDirectory())
        .map((d) => path.join(tmp, d.name))
        .filter((d) => path.basename(d) === hash || readTrimmed(path.join(d, '.project_root')) === cwd);
      return dirs.flatMap((d) => listDir(path.join(d, 'chats')).map((c) => path.join(d, 'chats', c.name))).filter((f) => f.endsWith('.jsonl') && recent(f));
    }
    case 'copilot': {
      const root = path.join(ctx.env.COPILOT_HOME || path.join(home(ctx.env), '.copilot'), 'session-state');
      return listDir(root)
        .filter((d) => d.isDirectory())
        .map((d) => path.join(root, d.name, 'events.jsonl'))
        .filter((f) => recent(f) && sameCwd(f, (r) => r.data?.context?.cwd));
    }
    case 'opencode':
      return [];
  }
}

function readTrimmed(file: string): string | null {
  try {
    return path.resolve(fs.readFileSync(file, 'utf8').trim());
  } catch {
    return null;
  }
}

/** The whole lines of `file` from `offset`: the text and the offset after the last line feed. */
function readLines(file: string, offset: number, max: number): { text: string; next: number } {
  const size = fs.statSync(file, { throwIfNoEntry: false })?.size ?? 0;
  // A file rewritten shorter than where we were: read it again from the start.
  const from = size < offset ? 0 : offset;
  const length = Math.min(size - from, max);
  if (length <= 0) return { text: '', next: from };
  const fd = fs.openSync(file, 'r');
  try {
    const buf = Buffer.alloc(length);
    const got = fs.readSync(fd, buf, 0, length, from);
    const end = buf.subarray(0, got).lastIndexOf(0x0a);
    if (end < 0) return { text: '', next: got === size - from ? from : from + got };
    return { text: buf.subarray(0, end).toString('utf8'), next: from + end + 1 };
  } finally {
    fs.closeSync(fd);
  }
}

/** The JSONL files of one CLI, each read from where the last read ended. */
class JsonlSource implements UsageSource {
  private readonly offsets = new Map<string, number>();
  private readonly cwdOf = new Map<string, string | null>();
  private readonly seen = new Set<string>();
  private readonly codex = new Map<string, CodexState>();
  /** The file this agent's records went to last time: preferred when several grew. */
  private pinned: string | null = null;

  constructor(private readonly ctx: SourceContext) {}

  private parse(file: string, lines: string[]): UsageRecord[] {
    if (this.seen.size > 50_000) this.seen.clear();
    switch (this.ctx.kind) {
      case 'claude':
      case 'echo':
        return parseClaudeLines(lines, this.seen);
      case 'codex': {
        let state = this.codex.get(file);
        if (!state) this.codex.set(file, (state = { model: null, lastTotal: null }));
        return parseCodexLines(lines, state);
      }
      case 'gemini':
        return parseGeminiLines(lines, this.seen);
      case 'copilot':
        return parseCopilotLines(lines, this.seen);
      case 'opencode':
        return [];
    }
  }

  /** New whole lines per file since the last read. */
  private grown(maxBytes: number, gapSkips: boolean): Map<string, string[]> {
    const out = new Map<string, string[]>();
    for (const file of candidateFiles(this.ctx, this.cwdOf)) {
      try {
        const offset = this.offsets.get(file) ?? 0;
        const size = fs.statSync(file, { throwIfNoEntry: false })?.size ?? 0;
        if (gapSkips && size - offset > MAX_GAP_BYTES) {
          this.offsets.set(file, size);
          continue;
        }
        const { text, next } = readLines(file, offset, maxBytes);
        this.offsets.set(file, next);
        if (text.length > 0) out.set(file, text.split('\n'));
      } catch {
        // unreadable now: try again next time
      }
    }
    return out;
  }

  skip(): void {
    // Parsed, not returned: the parsers keep what later lines need (ids seen, Codex's model).
    for (const [file, lines] of this.grown(MAX_GAP_BYTES, true)) this.parse(file, lines);
  }

  take(marker: string | null): UsageRecord[] {
    const grown = this.grown(MAX_READ_BYTES, false);
    const files = [...grown.keys()];
    const preferred = this.preferredFile();
    let ours: string[];
    if (files.length <= 1) ours = files;
    else if (preferred && grown.has(preferred)) ours = [preferred];
    else if (this.pinned && grown.has(this.pinned)) ours = [this.pinned];
    else {
      // Several agents of this CLI in one directory: the file that holds the delivered message.
      const needle = marker ? JSON.stringify(marker).slice(1, -1) : null;
      ours = needle ? files.filter((f) => grown.get(f)!.some((l) => l.includes(needle))) : [];
    }
    const records: UsageRecord[] = [];
    for (const [file, lines] of grown) {
      const parsed = this.parse(file, lines);
      if (ours.includes(file)) records.push(...parsed);
    }
    if (ours.length === 1) this.pinned = ours[0]!;
    return records;
  }

  private preferredFile(): string | null {
    const id = this.ctx.sessionId();
    if (!id) return null;
    if (this.ctx.kind === 'claude') return path.join(claudeProjectDir(this.ctx.cwd, this.ctx.env), `${id}.jsonl`);
    if (this.ctx.kind === 'echo')
      return path.join(this.ctx.env.ECHO_SESSION_DIR || path.join(agentStateDir(this.ctx.env), 'echo-sessions'), `${id}.usage.jsonl`);
    return null;
  }
}

/**
 * OpenCode keeps its messages in SQLite (`~/.local/share/opencode/opencode.db`, table `message`):
 * the assistant messages of this working directory created since the last `skip()`, each once.
 */
class OpencodeSource implements UsageSource {
  private since: number;
  private readonly seen = new Set<string>();

  constructor(private readonly ctx: SourceContext) {
    this.since = ctx.now();
  }

  private file(): string {
    const data = this.ctx.env.XDG_DATA_HOME || path.join(home(this.ctx.env), '.local', 'share');
    return path.join(data, 'opencode', 'opencode.db');
  }

  skip(): void {
    this.since = this.ctx.now();
    this.seen.clear();
  }

  take(): UsageRecord[] {
    const file = this.file();
    if (!fs.existsSync(file)) return [];
    const db = openReadonly(file);
    try {
      const rows = db.prepare('SELECT id, data FROM message WHERE time_created >= ? ORDER BY time_created').all(this.since - 1000) as Array<{
        id: string;
        data: string;
      }>;
      const cwd = path.resolve(this.ctx.cwd);
      const out: UsageRecord[] = [];
      for (const row of rows) {
        if (this.seen.has(row.id)) continue;
        const record = parseOpencodeMessage(row.data);
        if (!record || !row.data.includes(JSON.stringify(cwd).slice(1, -1))) continue;
        this.seen.add(row.id);
        out.push(record);
      }
      return out;
    } finally {
      db.close();
    }
  }
}

type ReadonlyDb = { prepare(sql: string): { all(...args: unknown[]): unknown[] }; close(): void };

/** better-sqlite3 (loaded on the first OpenCode read only), read-only, waiting out OpenCode's writes. */
function openReadonly(file: string): ReadonlyDb {
  const Database = requireCjs('better-sqlite3') as typeof BetterSqlite3;
  const db = new Database(file, { readonly: true, fileMustExist: true });
  db.pragma('busy_timeout = 2000');
  return db;
}

export function usageSource(ctx: SourceContext): UsageSource {
  return ctx.kind === 'opencode' ? new OpencodeSource(ctx) : new JsonlSource(ctx);
}
