#!/usr/bin/env node
// ci-watch: an optional Claude Code PostToolUse hook. After a Bash call that ran `git push …` or
// `gh pr create …`, it polls GitHub with `gh` (bounded time) until the runs for the pushed commit
// finish, looks at the branch's pull request (merge conflicts, reviews), and prints one hook JSON
// report: a short `systemMessage` for the user and the details as `additionalContext` for Claude,
// naming the skill to run next (/fix-ci, /fix-conflict, /fix-review).
//
// It does nothing (exit 0, no output) for any other tool or command, when `gh` is not on PATH, and
// on any error: a hook must never get in the tool's way. Register it with "async": true so Claude
// Code runs it in the background and hands the report over on the next turn (guides/skills.md).
//
//   ci-watch.mjs [--initial-wait S] [--interval S] [--max-wait S]    (defaults 20, 30, 600)
//
// No dependencies: node (>= 18), gh and git.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const TRIGGERS = [/(^|[\s;&|(])git\s+(?:-C\s+\S+\s+)?push(\s|$)/, /(^|[\s;&|(])gh\s+pr\s+create(\s|$)/];
const RUNNING = new Set(['queued', 'in_progress', 'waiting', 'requested', 'pending']);

/** Seconds from `--name S`, else the default. */
function option(args, name, fallback) {
  const at = args.indexOf(name);
  const value = at >= 0 ? Number(args[at + 1]) : NaN;
  return Number.isFinite(value) && value >= 0 ? value : fallback;
}

/** The full path of an executable on PATH, or null. */
function which(name, env) {
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const file = path.join(dir, name);
    try {
      fs.accessSync(file, fs.constants.X_OK);
      if (fs.statSync(file).isFile()) return file;
    } catch {
      // not here
    }
  }
  return null;
}

/** Peer and log text is data: no escape or control bytes reach Claude's context or the terminal. */
function clean(text) {
  // eslint-disable-next-line no-control-regex
  return String(text)
    .replace(/\x1b\[[0-9;?]*[ -/]*[@-~]/g, '')
    .replace(/[\x00-\x08\x0b-\x1f\x7f]/g, '');
}

function readStdin() {
  if (process.stdin.isTTY) return '';
  try {
    return fs.readFileSync(0, 'utf8');
  } catch {
    return '';
  }
}

/** The command a PostToolUse payload ran with Bash, or null for any other tool. */
function triggeringCommand(payload) {
  if (!payload || typeof payload !== 'object' || payload.tool_name !== 'Bash') return null;
  const command = payload.tool_input?.command;
  if (typeof command !== 'string') return null;
  return TRIGGERS.some((re) => re.test(command)) ? command : null;
}

const sleep = (seconds) => new Promise((resolve) => setTimeout(resolve, seconds * 1000));

function run(file, args, cwd) {
  const r = spawnSync(file, args, { cwd, encoding: 'utf8', timeout: 60_000, stdio: ['ignore', 'pipe', 'pipe'] });
  return { ok: r.status === 0, out: r.stdout ?? '' };
}

function json(text, fallback) {
  try {
    return JSON.parse(text);
  } catch {
    return fallback;
  }
}

async function watch(args, cwd, gh, git) {
  const initialWait = option(args, '--initial-wait', 20);
  const interval = Math.max(option(args, '--interval', 30), 0.01);
  const maxWait = option(args, '--max-wait', 600);
  const branch = git ? run(git, ['rev-parse', '--abbrev-ref', 'HEAD'], cwd).out.trim() : '';
  const sha = git ? run(git, ['rev-parse', 'HEAD'], cwd).out.trim() : '';
  if (!branch || branch === 'HEAD') return null;

  const started = Date.now();
  const elapsed = () => (Date.now() - started) / 1000;
  await sleep(initialWait);

  // 1. The workflow runs of the pushed commit, until none is running or time is up.
  let runs = [];
  for (;;) {
    const listArgs = ['run', 'list', '--branch', branch, '--limit', '20', '--json', 'databaseId,name,status,conclusion,headSha,url'];
    if (sha) listArgs.push('--commit', sha);
    const r = run(gh, listArgs, cwd);
    runs = r.ok ? json(r.out, []) : [];
    if (!Array.isArray(runs)) runs = [];
    const done = runs.length > 0 && runs.every((x) => !RUNNING.has(String(x.status).toLowerCase()));
    if (done || elapsed() + interval > maxWait) break;
    await sleep(interval);
  }

  // 2. The branch's pull request, if it has one: conflicts and reviews.
  let pr = null;
  for (let tries = 0; tries < 3; tries++) {
    const r = run(gh, ['pr', 'view', '--json', 'number,url,mergeable,mergeStateStatus,reviewDecision,reviews'], cwd);
    pr = r.ok ? json(r.out, null) : null;
    if (!pr || pr.mergeable !== 'UNKNOWN' || elapsed() + interval > maxWait) break;
    await sleep(interval);
  }

  return report({ branch, sha, runs, pr, gh, cwd, timedOut: runs.some((x) => RUNNING.has(String(x.status).toLowerCase())) });
}

function report({ branch, sha, runs, pr, gh, cwd, timedOut }) {
  const short = sha.slice(0, 8);
  const lines = [];
  const next = [];
  const failed = runs.filter((x) => ['failure', 'timed_out', 'startup_failure'].includes(String(x.conclusion).toLowerCase()));
  if (runs.length === 0) lines.push(`CI: no workflow runs found for ${branch} (${short}).`);
  else {
    lines.push(`CI for ${branch} (${short}):`);
    for (const x of runs) lines.push(`  ${clean(x.name)}: ${clean(x.conclusion || x.status)} ${clean(x.url ?? '')}`.trimEnd());
    if (timedOut) lines.push('  (still running when the watch ended: run /check-ci later)');
  }
  for (const x of failed.slice(0, 2)) {
    const log = run(gh, ['run', 'view', String(x.databaseId), '--log-failed'], cwd).out;
    const tail = clean(log).split('\n').filter(Boolean).slice(-40).join('\n');
    if (tail) lines.push(`Failed log of "${clean(x.name)}" (last lines):`, tail);
  }
  if (failed.length) next.push('/fix-ci');
  if (pr) {
    const conflict = pr.mergeable === 'CONFLICTING' || pr.mergeStateStatus === 'DIRTY';
    lines.push(`PR #${pr.number} ${clean(pr.url ?? '')}: ${conflict ? 'merge conflicts with its base' : `mergeable ${clean(pr.mergeable)}`}`);
    const reviews = Array.isArray(pr.reviews) ? pr.reviews : [];
    const asking = reviews.filter((r) => r.state === 'CHANGES_REQUESTED' || r.state === 'COMMENTED');
    if (reviews.length)
      lines.push(`  reviews: ${reviews.length} (${asking.length} with comments or changes requested), decision ${clean(pr.reviewDecision || 'none')}`);
    if (conflict) next.unshift('/fix-conflict');
    if (asking.length) next.push('/fix-review');
  }
  const verdict = failed.length ? 'CI FAILED' : timedOut ? 'CI still running' : runs.length ? 'CI passed' : 'no CI runs';
  const summary = `[ci-watch] ${verdict} on ${branch} (${short})${next.length ? `; next: ${next.join(', ')}` : ''}`;
  if (next.length) lines.push(`Next: run ${next.join(', then ')}.`);
  return { systemMessage: summary, hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: lines.join('\n') } };
}

async function main() {
  const payload = json(readStdin(), null);
  if (!triggeringCommand(payload)) return;
  const gh = which('gh', process.env);
  if (!gh) return;
  const git = which('git', process.env);
  const cwd = typeof payload.cwd === 'string' && fs.existsSync(payload.cwd) ? payload.cwd : process.cwd();
  const out = await watch(process.argv.slice(2), cwd, gh, git);
  if (out) process.stdout.write(`${JSON.stringify(out)}\n`);
}

// Always exit 0: a hook's failure must not reach the tool call. No process.exit: stdout drains first.
main().then(
  () => (process.exitCode = 0),
  () => (process.exitCode = 0),
);
