import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ProfileId } from './types.js';
import { randomUuid } from '../uuid.js';

/**
 * Each CLI's conversation id: how one is given to the CLI at start (where the CLI takes one), how
 * it is found afterwards in the CLI's own session files (where it does not), and how the CLI is
 * started again on that conversation (`synapse session restore --resume`). The id is recorded in
 * the agent's registry entry as `session_id`.
 */

/** Flags that name (or pick) the conversation the CLI starts on: with one of them, Synapse adds none. */
const CHOOSES_CONVERSATION: Partial<Record<ProfileId, string[]>> = {
  claude: ['--session-id', '--resume', '-r', '--continue', '-c'],
  echo: ['--session-id', '--resume', '--continue'],
};

/** The value after `flag` (`--flag value` or `--flag=value`), or null when the flag has none (or is absent). */
function flagValue(args: readonly string[], flag: string): string | null {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') return null;
    if (a.startsWith(`${flag}=`)) return a.slice(flag.length + 1) || null;
    if (a === flag) {
      const next = args[i + 1];
      return next !== undefined && !next.startsWith('-') ? next : null;
    }
  }
  return null;
}

function passes(args: readonly string[], flag: string): boolean {
  const end = args.indexOf('--');
  return (end < 0 ? args : args.slice(0, end)).some((a) => a === flag || a.startsWith(`${flag}=`));
}

/**
 * The CLI args with a fresh conversation id given to the CLI where it takes one at start
 * (Claude Code's and the echo agent's `--session-id <uuid>`), and the id it will run under: the
 * one added, the one the user passed (`--session-id X`, `--resume X`), or null when it cannot be
 * known now (another CLI, or `--continue`).
 */
export function withConversationId(profile: ProfileId, cliArgs: readonly string[]): { args: string[]; sessionId: string | null } {
  const flags = CHOOSES_CONVERSATION[profile];
  if (!flags) {
    // Codex: `codex resume <id>` names the conversation it goes on with.
    const resumed = profile === 'codex' && cliArgs[0] === 'resume' ? (cliArgs[1] ?? null) : null;
    return { args: [...cliArgs], sessionId: resumed && !resumed.startsWith('-') ? resumed : null };
  }
  const chosen = flags.find((f) => passes(cliArgs, f));
  if (chosen) {
    const named = chosen === '--session-id' || chosen === '--resume' || chosen === '-r' ? flagValue(cliArgs, chosen) : null;
    return { args: [...cliArgs], sessionId: named };
  }
  const id = randomUuid();
  return { args: ['--session-id', id, ...cliArgs], sessionId: id };
}

/** The CLI args that start the CLI on an earlier conversation: that id, or the CLI's "latest" when none is known. */
export function resumeArgs(profile: ProfileId, sessionId: string | null): string[] {
  switch (profile) {
    case 'claude':
    case 'echo':
    case 'copilot':
      return sessionId ? ['--resume', sessionId] : ['--continue'];
    case 'codex':
      return sessionId ? ['resume', sessionId] : ['resume', '--last'];
    case 'gemini':
      return ['--resume', sessionId ?? 'latest'];
    case 'opencode':
      return sessionId ? ['--session', sessionId] : ['--continue'];
  }
}

/** A codex rollout file's name: `rollout-2025-06-01T10-20-30-<uuid>.jsonl`. */
const ROLLOUT = /^rollout-.*-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/i;

interface RolloutMeta {
  id?: unknown;
  cwd?: unknown;
  payload?: { id?: unknown; cwd?: unknown };
}

/** The rollout files under `dir` (`YYYY/MM/DD/rollout-….jsonl`), changed at or after `sinceMs`. */
function rolloutFiles(dir: string, sinceMs: number): { file: string; mtimeMs: number }[] {
  const out: { file: string; mtimeMs: number }[] = [];
  const walk = (d: string, depth: number) => {
    let names: fs.Dirent[];
    try {
      names = fs.readdirSync(d, { withFileTypes: true });
    } catch {
      return; // no sessions yet
    }
    for (const n of names) {
      const p = path.join(d, n.name);
      if (n.isDirectory() && depth < 3) walk(p, depth + 1);
      else if (n.isFile() && ROLLOUT.test(n.name)) {
        const mtimeMs = fs.statSync(p, { throwIfNoEntry: false })?.mtimeMs ?? 0;
        if (mtimeMs >= sinceMs) out.push({ file: p, mtimeMs });
      }
    }
  };
  walk(dir, 0);
  return out;
}

/** The first line of a file (a rollout's `session_meta` record), or null. */
function firstLine(file: string): string | null {
  try {
    const fd = fs.openSync(file, 'r');
    try {
      const buf = Buffer.alloc(64 * 1024);
      const n = fs.readSync(fd, buf, 0, buf.length, 0);
      return buf.subarray(0, n).toString('utf8').split('\n', 1)[0] ?? null;
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return null;
  }
}

/**
 * Codex writes each conversation to `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl`
 * (CODEX_HOME defaults to `~/.codex`), whose first line (`session_meta`) holds the id and the
 * working directory. The conversation of an agent is the earliest one started in its working
 * directory since the agent started.
 */
function codexConversation(where: { cwd: string; sinceMs: number; env: NodeJS.ProcessEnv }): string | null {
  const codexHome = where.env.CODEX_HOME || path.join(where.env.HOME || os.homedir(), '.codex');
  const candidates = rolloutFiles(path.join(codexHome, 'sessions'), where.sinceMs).sort((a, b) => a.mtimeMs - b.mtimeMs);
  const wanted = path.resolve(where.cwd);
  for (const { file } of candidates) {
    let meta: RolloutMeta;
    try {
      meta = JSON.parse(firstLine(file) ?? '') as RolloutMeta;
    } catch {
      continue;
    }
    const cwd = meta.payload?.cwd ?? meta.cwd;
    if (typeof cwd !== 'string' || path.resolve(cwd) !== wanted) continue;
    const id = meta.payload?.id ?? meta.id;
    if (typeof id === 'string' && id) return id;
    return ROLLOUT.exec(path.basename(file))?.[1] ?? null;
  }
  return null;
}

/** Whether the CLI's conversation id is read from its session files once it runs (it takes none at start). */
export function findsConversationLater(profile: ProfileId): boolean {
  return profile === 'codex';
}

/**
 * The conversation an agent's CLI runs, read from the CLI's own session files: Codex's rollout
 * files. Null for the CLIs that take the id at start (it is in the registry already) and for those
 * resumed by "latest" (Gemini CLI, OpenCode and Copilot CLI: `--resume latest`, `--continue`).
 */
export function findConversationId(profile: ProfileId, where: { cwd: string; sinceMs: number; env: NodeJS.ProcessEnv }): string | null {
  return profile === 'codex' ? codexConversation(where) : null;
}
