import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { claudeProfile } from '../../../src/profiles/claude.js';
import { echoProfile } from '../../../src/profiles/echo.js';
import { parsePlanDialog } from '../../../src/profiles/plan.js';
import { classifyScreen, viewOf } from '../../../src/profiles/screen-rules.js';
import { Screen } from '../../../src/runtime/screen.js';

const CLAUDE = new URL('../../fixtures/screens/claude/2.1.197/', import.meta.url);
const PLAN = 'Rename the helper\n\n1. Rename util.ts to strings.ts\n2. Update the two imports\n3. Run the tests';

function lines(file: string): string[] {
  return fs.readFileSync(new URL(file, CLAUDE), 'utf8').replace(/\n$/, '').split('\n');
}

describe("Claude Code's plan-approval screen (recorded, 2.1.197)", () => {
  it('reads as WAITING with the plan text between its rules', () => {
    const screen = lines('waiting/plan-approval.txt');
    expect(classifyScreen(claudeProfile, viewOf(screen))).toBe('WAITING');
    expect(parsePlanDialog(screen, claudeProfile.plan!)).toEqual({ text: PLAN });
  });

  it('reads the same when replayed byte for byte into the runtime screen', async () => {
    const screen = new Screen(120, 40);
    screen.write(fs.readFileSync(new URL('waiting/plan-approval.ansi', CLAUDE), 'utf8'));
    await screen.flushed();
    expect(parsePlanDialog(screen.viewport(), claudeProfile.plan!)).toEqual({ text: PLAN });
  });

  it('is still a plan screen with the reject choice selected', () => {
    const screen = lines('waiting/plan-approval-reject-selected.txt');
    expect(classifyScreen(claudeProfile, viewOf(screen))).toBe('WAITING');
    expect(parsePlanDialog(screen, claudeProfile.plan!)?.text).toBe(PLAN);
  });

  it('is gone once the plan is rejected: READY, no plan', () => {
    const screen = lines('ready/after-plan-rejected.txt');
    expect(classifyScreen(claudeProfile, viewOf(screen))).toBe('READY');
    expect(parsePlanDialog(screen, claudeProfile.plan!)).toBeNull();
  });

  it('is not a permission dialog read as a plan', () => {
    expect(parsePlanDialog(lines('waiting/permission-dialog.txt'), claudeProfile.plan!)).toBeNull();
  });

  it('reads the 80x24 screen, where the question wraps', () => {
    for (const file of ['waiting/80x24-plan-approval.txt', 'waiting/80x24-plan-approval-reject-selected.txt']) {
      const screen = lines(file);
      expect(classifyScreen(claudeProfile, viewOf(screen)), file).toBe('WAITING');
      expect(parsePlanDialog(screen, claudeProfile.plan!)?.text, file).toBe(PLAN);
    }
    expect(classifyScreen(claudeProfile, viewOf(lines('ready/80x24-after-plan-rejected.txt')))).toBe('READY');
  });

  it('a long plan: the heading is off the viewport, WAITING still, and the runtime reads the plan from the scrollback', async () => {
    const view = lines('waiting/80x24-40-steps-plan-approval.txt');
    expect(classifyScreen(claudeProfile, viewOf(view))).toBe('WAITING');
    expect(parsePlanDialog(view, claudeProfile.plan!)).toBeNull();
    const screen = new Screen(80, 24);
    screen.write(fs.readFileSync(new URL('waiting/80x24-40-steps-plan-approval.ansi', CLAUDE), 'utf8'));
    await screen.flushed();
    const steps = Array.from({ length: 40 }, (_, i) => `${i + 1}. Step number ${i + 1}`).join('\n');
    expect(parsePlanDialog(screen.allLines(), claudeProfile.plan!)).toEqual({ text: `A long plan\n\n${steps}` });
  });

  it('approves with 2 (manual edits); rejects with 3, then Enter only once choice 3 shows selected', () => {
    const plan = claudeProfile.plan!;
    expect(plan.approveKeys).toEqual(['2']);
    expect(plan.rejectKeys).toEqual(['3']);
    expect(plan.rejectConfirm?.key).toBe('\r');
    const selected = (file: string) => lines(file).some((row) => plan.rejectConfirm!.selected.test(row));
    expect(selected('waiting/plan-approval.txt')).toBe(false);
    expect(selected('waiting/plan-approval-reject-selected.txt')).toBe(true);
    expect(selected('waiting/80x24-plan-approval-reject-selected.txt')).toBe(true);
  });
});

describe("the echo agent's plan screen", () => {
  const screen = [
    'echo> [[plan: step one',
    '      step two]]',
    'Here is the plan:',
    '─'.repeat(40),
    ' step one',
    ' step two',
    '─'.repeat(40),
    'Would you like to proceed?',
    '❯ 1. Yes, proceed',
    '  2. No, keep planning',
  ];

  it('reads as WAITING with its plan', () => {
    expect(classifyScreen(echoProfile, viewOf(screen))).toBe('WAITING');
    expect(parsePlanDialog(screen, echoProfile.plan!)).toEqual({ text: 'step one\nstep two' });
  });

  it('needs the heading above the question', () => {
    expect(parsePlanDialog(screen.slice(3), echoProfile.plan!)).toBeNull();
  });
});
