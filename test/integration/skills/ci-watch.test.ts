import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOT } from '../../support/synapse.js';

/**
 * The optional PostToolUse hook of the check-ci skill (skills/check-ci/scripts/ci-watch.mjs), run
 * as Claude Code runs it: the hook JSON on stdin, with stub `gh` and `git` executables on PATH that
 * log their argv. It asks GitHub only after a Bash `git push` / `gh pr create`, polls until the
 * runs finish or its time is up, prints one hook report, and is silent and exit 0 otherwise.
 */

const HOOK = path.join(ROOT, 'skills', 'check-ci', 'scripts', 'ci-watch.mjs');
const FAST = ['--initial-wait', '0', '--interval', '0.01', '--max-wait', '5'];
const temps: string[] = [];
afterEach(() => {
  for (const t of temps.splice(0)) fs.rmSync(t, { recursive: true, force: true });
});

/** `gh` answers from canned JSON; `run list` says "in_progress" for the first `pendingPolls` calls. Shell builtins only: PATH holds nothing else. */
function stubs(opts: { gh?: boolean; pendingPolls?: number; conclusion?: string; pr?: object | null } = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'synapse-ci-watch-'));
  temps.push(dir);
  const log = path.join(dir, 'argv.log');
  const pr =
    opts.pr === undefined ? { number: 3, url: 'https://github.com/acme/app/pull/3', mergeable: 'MERGEABLE', mergeStateStatus: 'CLEAN', reviews: [] } : opts.pr;
  const run = (status: string, conclusion: string) =>
    JSON.stringify([{ databaseId: 77, name: 'ci', status, conclusion, headSha: '0123456789abcdef', url: 'https://github.com/acme/app/actions/runs/77' }]);
  const write = (name: string, body: string) => fs.writeFileSync(path.join(dir, name), `#!/bin/sh\necho "${name} $*" >> '${log}'\n${body}`, { mode: 0o755 });
  write(
    'git',
    `case "$*" in
  "rev-parse --abbrev-ref HEAD") echo feat/parser ;;
  "rev-parse HEAD") echo 0123456789abcdef ;;
esac
`,
  );
  if (opts.gh !== false)
    write(
      'gh',
      `count='${path.join(dir, 'polls')}'
case "$1 $2" in
  "run list")
    n=0; [ -f "$count" ] && read -r n < "$count"; n=$((n + 1)); echo "$n" > "$count"
    if [ "$n" -le ${opts.pendingPolls ?? 0} ]; then echo '${run('in_progress', '')}'; else echo '${run('completed', opts.conclusion ?? 'success')}'; fi ;;
  "run view") printf 'Run npx vitest run\\n\\033[31mFAIL\\033[0m test/parser.test.ts > empty input\\n' ;;
  "pr view") ${pr ? `echo '${JSON.stringify(pr)}'` : 'echo "no pull requests found" >&2; exit 1'} ;;
esac
`,
    );
  const calls = () => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8').trim().split('\n') : []);
  return { dir, calls };
}

function hook(stub: { dir: string }, payload: unknown, args: string[] = FAST) {
  const input = typeof payload === 'string' ? payload : JSON.stringify(payload);
  const r = spawnSync(process.execPath, [HOOK, ...args], { input, encoding: 'utf8', env: { PATH: stub.dir, HOME: stub.dir }, cwd: stub.dir, timeout: 20_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const bash = (command: string) => ({
  session_id: 's',
  hook_event_name: 'PostToolUse',
  tool_name: 'Bash',
  tool_input: { command },
  tool_response: { stdout: '' },
});
const report = (stdout: string) => JSON.parse(stdout) as { systemMessage: string; hookSpecificOutput: { hookEventName: string; additionalContext: string } };

describe('ci-watch: the optional PostToolUse hook', () => {
  it('after `git push` it polls the runs of the pushed commit and the PR with gh, and reports CI passed', () => {
    const stub = stubs();
    const r = hook(stub, bash('git add -u && git commit -m x && git push -u origin feat/parser'));
    expect(r.code).toBe(0);
    expect(stub.calls()).toEqual([
      'git rev-parse --abbrev-ref HEAD',
      'git rev-parse HEAD',
      'gh run list --branch feat/parser --limit 20 --json databaseId,name,status,conclusion,headSha,url --commit 0123456789abcdef',
      'gh pr view --json number,url,mergeable,mergeStateStatus,reviewDecision,reviews',
    ]);
    const out = report(r.stdout);
    expect(out.systemMessage).toBe('[ci-watch] CI passed on feat/parser (01234567)');
    expect(out.hookSpecificOutput.hookEventName).toBe('PostToolUse');
    expect(out.hookSpecificOutput.additionalContext).toContain('PR #3 https://github.com/acme/app/pull/3: mergeable MERGEABLE');
  });

  it('keeps polling while a run is in progress, then reports the failure with its log (no escape bytes) and the skills to run', () => {
    const stub = stubs({
      pendingPolls: 2,
      conclusion: 'failure',
      pr: { number: 3, mergeable: 'CONFLICTING', mergeStateStatus: 'DIRTY', reviews: [{ state: 'CHANGES_REQUESTED' }] },
    });
    const r = hook(stub, bash('gh pr create --fill'));
    expect(r.code).toBe(0);
    expect(stub.calls().filter((c) => c.startsWith('gh run list'))).toHaveLength(3);
    expect(stub.calls()).toContain('gh run view 77 --log-failed');
    const out = report(r.stdout);
    expect(out.systemMessage).toBe('[ci-watch] CI FAILED on feat/parser (01234567); next: /fix-conflict, /fix-ci, /fix-review');
    expect(out.hookSpecificOutput.additionalContext).toContain('FAIL test/parser.test.ts > empty input');
    expect(out.hookSpecificOutput.additionalContext).not.toContain('\u001b');
  });

  it('gives up after --max-wait and says CI is still running; without a PR it reports CI alone', () => {
    const stub = stubs({ pendingPolls: 1_000, pr: null });
    const r = hook(stub, bash('git push'), ['--initial-wait', '0', '--interval', '0.01', '--max-wait', '0']);
    expect(r.code).toBe(0);
    const out = report(r.stdout);
    expect(out.systemMessage).toBe('[ci-watch] CI still running on feat/parser (01234567)');
    expect(out.hookSpecificOutput.additionalContext).not.toContain('PR #');
  });

  it('calls nothing and prints nothing for other tools, other commands and input that is not a hook payload', () => {
    const stub = stubs();
    const inputs: unknown[] = [
      { tool_name: 'Edit', tool_input: { file_path: 'a.ts' } },
      { tool_name: 'Write', tool_input: { command: 'git push' } },
      bash('git status'),
      bash('git pushd'),
      bash('gh pr view'),
      { tool_name: 'Bash', tool_input: {} },
      'not json',
      '',
    ];
    for (const input of inputs) {
      const r = hook(stub, input);
      expect([r.code, r.stdout, r.stderr], JSON.stringify(input)).toEqual([0, '', '']);
    }
    expect(stub.calls()).toEqual([]);
  });

  it('without gh on PATH it exits 0 silently, calling nothing', () => {
    const stub = stubs({ gh: false });
    const r = hook(stub, bash('git push origin HEAD'));
    expect([r.code, r.stdout, r.stderr]).toEqual([0, '', '']);
    expect(stub.calls()).toEqual([]);
  });

  it('ships in the plugin as an executable copy that parses', () => {
    const copy = path.join(ROOT, 'plugins', 'synapse-a2a', 'skills', 'check-ci', 'scripts', 'ci-watch.mjs');
    expect(fs.statSync(copy).mode & 0o100).toBe(0o100);
    expect(spawnSync(process.execPath, ['--check', copy]).status).toBe(0);
  });
});
