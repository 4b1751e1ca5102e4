// Records Claude Code's plan-approval screen (after its ExitPlanMode tool) against the offline
// mock model server, for test/fixtures/screens/claude/<version>/waiting/plan-approval*.txt.
//
//   node test/support/record-plan-screen.mjs [outDir]      (120x40)
//   COLS=80 ROWS=24 node test/support/record-plan-screen.mjs   (files prefixed 80x24-)
//   PLAN_STEPS=40 …                                             (a longer plan; prefixed 40-steps-)
//
// The CLI starts in plan mode (`--permission-mode plan`). Claude Code 2.x reads the plan from a plan
// file whose path its plan-mode system text names (`~/.claude/plans/<slug>.md`): a first message
// makes it send that text, the script writes the plan there (as the model would with its Write
// tool), and a second message asks the mock to call ExitPlanMode (`[[mcp: ExitPlanMode {}]]`: the
// mock calls any tool the request offers under that exact name). The screen is saved once the
// approval question is drawn.

import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { prepareClaudeHome, CLI_VERSIONS } from './cli-home.mjs';
import { startMockModelServer } from './mock-model-server.mjs';
import { spawnScreen } from './pty-screen.mjs';

const out = process.argv[2] ?? `test/fixtures/screens/claude/${CLI_VERSIONS.claude}/waiting`;
const STEPS = Number(process.env.PLAN_STEPS ?? 3);
const PLAN =
  STEPS === 3
    ? '# Rename the helper\n\n1. Rename util.ts to strings.ts\n2. Update the two imports\n3. Run the tests\n'
    : `# A long plan\n\n${Array.from({ length: STEPS }, (_, i) => `${i + 1}. Step number ${i + 1}`).join('\n')}\n`;
const server = await startMockModelServer();
const h = await prepareClaudeHome({ baseUrl: server.url });
const cols = Number(process.env.COLS ?? 120);
const rows = Number(process.env.ROWS ?? 40);
const prefix = `${cols === 120 && rows === 40 ? '' : `${cols}x${rows}-`}${STEPS === 3 ? '' : `${STEPS}-steps-`}`;
const s = spawnScreen({ file: h.bin, args: ['--permission-mode', 'plan'], cwd: h.cwd, env: h.env, cols, rows });
try {
  await s.waitFor((t) => /❯/.test(t) && /plan mode on/.test(t), 30_000);
  await new Promise((r) => setTimeout(r, 1000));
  await s.paste('plan a rename');
  await s.submit(200);
  const first = await server.waitForRequest((r) => r.path === '/v1/messages' && JSON.stringify(r.body ?? '').includes('Plan File Info'), 30_000);
  const planFile = /create your plan at (\S+\.md)/.exec(JSON.stringify(first.body))?.[1];
  if (!planFile) throw new Error('no plan file path in the plan-mode system text');
  await mkdir(dirname(planFile), { recursive: true });
  await writeFile(planFile, PLAN);
  await s.waitFor((t) => /MOCK: plan a rename/.test(t), 30_000);
  await new Promise((r) => setTimeout(r, 1000));
  await s.paste('[[mcp: ExitPlanMode {}]]');
  await s.submit(200);
  await s.waitFor((t) => /ready to execute/.test(t), 30_000);
  await new Promise((r) => setTimeout(r, 1500));
  await s.flush();
  await mkdir(out, { recursive: true });
  await writeFile(join(out, `${prefix}plan-approval.txt`), `${s.viewport().join('\n')}\n`);
  await writeFile(join(out, `${prefix}plan-approval.ansi`), s.rawText());
  // Reject: the reject choice's key (it only selects: choice 3 is a feedback field), then Enter
  // with no feedback typed, which rejects (the CLI goes back to its idle prompt, plan mode on, and
  // asks the model nothing more).
  s.write('3');
  await new Promise((r) => setTimeout(r, 1000));
  await s.flush();
  await writeFile(join(out, `${prefix}plan-approval-reject-selected.txt`), `${s.viewport().join('\n')}\n`);
  const before = server.requests.filter((r) => r.path === '/v1/messages').length;
  s.write('\r');
  await s.waitFor((t) => /plan mode on/.test(t) && !/ready to execute/.test(t), 15_000);
  await new Promise((r) => setTimeout(r, 1500));
  await s.flush();
  await writeFile(join(out, `../ready/${prefix}after-plan-rejected.txt`), `${s.viewport().join('\n')}\n`);
  console.log(`model requests after the reject: ${server.requests.filter((r) => r.path === '/v1/messages').length - before}`);
} catch (err) {
  console.error(String(err));
  console.error(s.viewport().join('\n'));
  process.exitCode = 1;
} finally {
  await s.kill();
  await server.close();
  await h.cleanup();
}
