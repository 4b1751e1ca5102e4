#!/usr/bin/env node
// Record rendered screens of the real agent CLIs (pinned in test/e2e/clis) against the offline
// mock model server, as plain-text fixtures for status rules and reply extraction.
//
//   node test/support/record-screens.mjs            # all CLIs
//   node test/support/record-screens.mjs claude     # one CLI (claude | codex | gemini)
//   node test/support/record-screens.mjs --readme-only   # rewrite README.md from manifest.json
//
// Output: test/fixtures/screens/<cli>/<version>/<status>/<case>.txt (+ .ansi for some cases),
//         test/fixtures/screens/<cli>/<version>/turns/<case>/{before,after,user,expected-reply}.txt,
//         manifest.json and README.md beside them. Existing fixtures of that CLI version are
//         replaced. Each screen's status comes from the scenario timeline (what the mock model had
//         sent and received at that moment), checked by Recording.capture().
//
// Needs: `cd test/e2e/clis && npm install`. Uses only 127.0.0.1, temporary HOMEs and free ports.

import { existsSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { CLI_VERSIONS, cliBin, prepareClaudeHome, prepareCodexHome, prepareGeminiHome } from './cli-home.mjs';
import { Recording, screensSection } from './screen-recorder.mjs';
import { claudeBypassScenario, earlyInputScenario, mainScenario, smallScenario } from './screen-scenarios.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const FIXTURES = resolve(HERE, '../fixtures/screens');

/** How each CLI is driven. Only facts observed on the pinned versions (see NOTES.md). */
const PROFILES = {
  claude: {
    prepare: prepareClaudeHome,
    readyRe: /\? for shortcuts/,
    // The input row is "❯" + U+00A0; the echoed prompt in the transcript is "❯" + a plain space.
    inputRowRe: /^❯\u00a0/m,
    dialogRe: /Do you want to proceed\?/,
    submitGapMs: 50,
    settleAfterReadyMs: 500,
    approveKey: '1',
    denyKey: '3',
    // Claude Code runs read-only commands such as `echo` without asking; a write makes it ask.
    toolText: (n) => `please run [[sh: touch made-${n}.txt && echo hi-${n}]]`,
    slowToolText: (n) => `slow tool [[sh: touch slow-${n}.txt && sleep 3 && echo done-${n}]]`,
  },
  codex: {
    prepare: prepareCodexHome,
    readyRe: /Ask Codex to do anything/,
    inputRowRe: /^› /m,
    dialogRe: /Would you like to run the following command\?/,
    submitGapMs: 50,
    settleAfterReadyMs: 500,
    approveKey: 'y',
    denyKey: '3',
    // In its workspace-write sandbox Codex runs commands without asking; an escalation request asks.
    toolText: (n) => `please run [[escalate: touch made-${n}.txt && echo hi-${n}]]`,
    slowToolText: (n) => `slow tool [[escalate: touch slow-${n}.txt && sleep 3 && echo done-${n}]]`,
    plainToolText: (n) => `sandboxed [[sh: echo hi-${n}]]`,
  },
  gemini: {
    prepare: prepareGeminiHome,
    readyRe: /Type your message/,
    inputRowRe: /^ > /m,
    dialogRe: /Allow execution of/,
    submitGapMs: 100,
    settleAfterReadyMs: 1000,
    approveKey: '1',
    denyKey: '3',
    toolText: (n) => `please run [[sh: touch made-${n}.txt && echo hi-${n}]]`,
    slowToolText: (n) => `slow tool [[sh: touch slow-${n}.txt && sleep 3 && echo done-${n}]]`,
  },
};

// ---- driver ---------------------------------------------------------------------------------

const RUNS = {
  claude: [
    { cols: 120, rows: 40, prefix: '', scenario: mainScenario },
    { cols: 80, rows: 24, prefix: '80x24-', scenario: smallScenario },
    { cols: 120, rows: 40, prefix: 'bypass-', scenario: claudeBypassScenario, prepareOptions: { skipPermissions: true } },
    { cols: 120, rows: 40, prefix: 'early-input-', scenario: earlyInputScenario },
  ],
  codex: [
    { cols: 120, rows: 40, prefix: '', scenario: mainScenario },
    { cols: 80, rows: 24, prefix: '80x24-', scenario: smallScenario },
    { cols: 120, rows: 40, prefix: 'early-input-', scenario: earlyInputScenario },
  ],
  gemini: [
    { cols: 120, rows: 40, prefix: '', scenario: mainScenario },
    { cols: 80, rows: 24, prefix: '80x24-', scenario: smallScenario },
    { cols: 120, rows: 40, prefix: 'early-input-', scenario: earlyInputScenario },
  ],
};

async function recordCli(cli) {
  const version = CLI_VERSIONS[cli];
  if (!existsSync(cliBin(cli))) throw new Error(`${cliBin(cli)} missing: run \`cd test/e2e/clis && npm install\``);
  const outDir = join(FIXTURES, cli, version);
  await rm(outDir, { recursive: true, force: true });
  await mkdir(outDir, { recursive: true });
  const manifest = [];
  const p = PROFILES[cli];
  const runs = [];
  for (const run of RUNS[cli]) {
    const rec = new Recording({
      cli,
      outDir,
      prepare: p.prepare,
      prepareOptions: run.prepareOptions,
      cols: run.cols,
      rows: run.rows,
      prefix: run.prefix,
      manifest,
    });
    const started = Date.now();
    let error = null;
    try {
      await rec.start();
      await run.scenario(rec, p);
    } catch (err) {
      error = err;
      process.stderr.write(`[${cli}] run ${run.prefix || 'main'} failed: ${err.stack ?? err}\n`);
    } finally {
      const requests = rec.server?.requests.length ?? 0;
      const unknown = [...new Set((rec.server?.unknown ?? []).map((r) => `${r.method} ${r.path}`))];
      await rec.stop();
      runs.push({
        prefix: run.prefix,
        cols: run.cols,
        rows: run.rows,
        seconds: (Date.now() - started) / 1000,
        requests,
        unknown,
        error: error ? String(error.message).split('\n')[0] : null,
      });
    }
  }
  await writeFile(join(outDir, 'manifest.json'), `${JSON.stringify({ cli, version, runs, screens: manifest }, null, 2)}\n`);
  await writeFile(join(outDir, 'README.md'), readme(cli, version, runs, manifest));
  return { cli, version, runs, manifest };
}

function readme(cli, version, runs, manifest) {
  return `# ${cli} ${version} recorded screens

Produced by \`node test/support/record-screens.mjs ${cli}\` with the CLI pinned in
\`test/e2e/clis/package.json\` (${cli} ${version}), run under node-pty (TERM=xterm-256color) and rendered by
@xterm/headless (scrollback 5000), against the offline mock model server
(\`test/support/mock-model-server.mjs\`) in a temporary HOME (\`test/support/cli-home.mjs\`).

Each \`<status>/<case>.txt\` is the visible viewport at that moment: one line per row,
\`translateToString(true)\` (empty cells trimmed; spaces the CLI wrote stay), trailing blank rows
removed. \`<case>.ansi\` is every
byte the PTY produced from start until that moment, so writing it into a fresh terminal of the
same size reproduces the screen. The status is what the CLI was doing, taken from the scenario
timeline (mock still holding or streaming the answer → processing; tool call sent and no result
back → waiting; answer fully sent and output quiet → ready; before the idle prompt was first
drawn → starting), not from the screen text. Cases prefixed \`80x24-\` come from an 80x24 run;
\`bypass-\` from a run with \`--dangerously-skip-permissions\` (IS_SANDBOX=1, Claude only);
\`early-input-\` from a run where \`early text\` was pasted 200 ms after spawn, before the CLI was
up; the rest from one 120x40 run (resize cases say their size). What each screen shows and means
is summarised in ../../NOTES.md.

\`turns/<case>/\`: \`before.txt\` (screen before the text was pasted), \`after.txt\` (screen when
the turn was over), \`user.txt\` (what was submitted) and \`expected-reply.txt\` (what the mock model
answered, i.e. what reply extraction should find).

${screensSection(runs, manifest)}`;
}

/** `--readme-only`: rewrite README.md from an existing manifest.json without recording. */
async function rewriteReadme(cli) {
  const { readFile } = await import('node:fs/promises');
  const outDir = join(FIXTURES, cli, CLI_VERSIONS[cli]);
  const m = JSON.parse(await readFile(join(outDir, 'manifest.json'), 'utf8'));
  await writeFile(join(outDir, 'README.md'), readme(cli, m.version, m.runs, m.screens));
}

const readmeOnly = process.argv.includes('--readme-only');
const wanted = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const clis = wanted.length ? wanted : ['claude', 'codex', 'gemini'];
for (const cli of clis) {
  if (!PROFILES[cli]) throw new Error(`unknown CLI ${cli}; choose from ${Object.keys(PROFILES).join(', ')}`);
}
let failed = false;
if (readmeOnly) {
  for (const cli of clis) await rewriteReadme(cli);
  clis.length = 0;
}
for (const cli of clis) {
  const { version, runs, manifest } = await recordCli(cli);
  const by = (s) => manifest.filter((m) => m.status === s).length;
  process.stdout.write(
    `${cli} ${version}: ${manifest.length} screens (starting ${by('starting')}, ready ${by('ready')}, processing ${by('processing')}, waiting ${by('waiting')})\n`,
  );
  if (runs.some((r) => r.error)) failed = true;
}
process.exitCode = failed ? 1 : 0;
