// The delivery loop's turn-end logic, against a real headless screen and a real task store, with a
// scripted stand-in for the CLI on the other side of the PTY (what it draws, and when). Time is
// vitest's fake clock: the loop, the status tracker, the injector, the stand-in's frames and the
// headless terminal's own parsing all run on it, so a window of seconds takes no real time.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Task } from '../../../src/agent-api/task.js';
import { echoProfile } from '../../../src/profiles/echo.js';
import { afterLastEcho } from '../../../src/profiles/text.js';
import { screenTurns } from '../../../src/profiles/turns.js';
import type { Profile } from '../../../src/profiles/types.js';
import { systemClock } from '../../../src/clock.js';
import { DeliveryLoop } from '../../../src/runtime/delivery.js';
import { Injector } from '../../../src/runtime/injector.js';
import { Screen } from '../../../src/runtime/screen.js';
import { ScreenStatusTracker } from '../../../src/runtime/screen-status.js';
import { TaskManager } from '../../../src/runtime/tasks.js';
import type { AgentTerminal } from '../../../src/runtime/terminal.js';
import { AgentTaskStore } from '../../../src/store/agent-tasks.js';

const PROMPT = 'echo> ';
const WORKED = /^✻ Worked for \d+s/;

/** The stand-in's end-of-turn row, counted only after this message's echo (as the real profiles do). */
const turnEnded = (lines: string[], userText: string) => {
  const start = afterLastEcho(
    lines,
    userText,
    (r) => r.startsWith(PROMPT),
    (r) => r.slice(PROMPT.length),
  );
  return start > 0 && lines.slice(start).some((r) => WORKED.test(r));
};

/** What the stand-in CLI does once it sees the submit key: draw these frames, `gapMs` apart. */
type Turn = (text: string) => { frames: string[]; gapMs: number };

interface Rig {
  tasks: TaskManager;
  screen: Screen;
  send(text: string, priority?: number): Task;
  /** Every write to the CLI's terminal, in order. */
  written: string[];
  /** The screen each of those writes landed on. */
  writtenOver: string[];
  turnsDone: Array<{ taskId: string; output: string }>;
  delivery: DeliveryLoop;
}

const cleanups: Array<() => void> = [];
beforeEach(() => vi.useFakeTimers());
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
  vi.useRealTimers();
});

/** Lets fake time pass, 10 ms at a time, until `fn` holds; fails after `ms` of fake time. */
async function until(fn: () => boolean, ms: number, what: string): Promise<void> {
  for (let waited = 0; !fn(); waited += 10) {
    if (waited >= ms) throw new Error(`not within ${ms} ms (fake time): ${what}`);
    await vi.advanceTimersByTimeAsync(10);
  }
}

/** Lets `ms` of fake time pass. */
const pass = (ms: number) => vi.advanceTimersByTimeAsync(ms);

async function rig(
  profile: Profile,
  turn: Turn,
  opts: { history?: string; onInterrupt?: () => ReturnType<Turn>; admits?: (task: Task) => boolean } = {},
): Promise<Rig> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'synapse-delivery-'));
  const store = new AgentTaskStore(path.join(dir, 'agent.db'));
  const screen = new Screen(100, 20);
  const timers = new Set<NodeJS.Timeout>();
  let pasted = '';
  const written: string[] = [];
  const writtenOver: string[] = [];
  const terminal: AgentTerminal = {
    pid: 0,
    write(data) {
      written.push(data);
      writtenOver.push(screen.viewport().join('\n'));
      const paste = /\x1b\[200~([\s\S]*)\x1b\[201~/.exec(data);
      if (paste) pasted = paste[1] ?? '';
      const interrupted = profile.interrupt.kind === 'key' && data === profile.interrupt.key && opts.onInterrupt;
      if (data !== '\r' && !interrupted) return;
      const { frames, gapMs } = interrupted ? opts.onInterrupt!() : turn(pasted.replace(/\n/g, ' '));
      frames.forEach((frame, i) => {
        const t = setTimeout(() => {
          timers.delete(t);
          screen.write(frame);
        }, i * gapMs);
        timers.add(t);
      });
    },
    resize() {},
    onData() {},
    onExit() {},
    signalGroup() {},
    kill() {},
  };
  const tasks = new TaskManager(store, systemClock);
  const tracker = new ScreenStatusTracker(profile, () => ({ lines: screen.viewport(), seq: screen.seq }), systemClock);
  screen.onChange(() => tracker.onOutput());
  const turnsDone: Rig['turnsDone'] = [];
  const delivery = new DeliveryLoop({
    tasks,
    screen,
    tracker,
    injector: new Injector(terminal, profile, systemClock),
    profile,
    clock: systemClock,
    framing: { longMessageThreshold: 10_000, messageDir: dir },
    turnDone: (taskId, output) => {
      turnsDone.push({ taskId, output });
      tasks.transition(taskId, 'completed', { receipt: 'answered' });
    },
    ...(opts.admits ? { admits: opts.admits } : {}),
  });
  cleanups.push(() => {
    delivery.stopped('end of test');
    for (const t of timers) clearTimeout(t);
    tracker.stop();
    screen.dispose();
    store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  screen.write(`${opts.history ?? ''}${PROMPT}`);
  await until(() => tracker.current?.status === 'READY', 2000, 'the first READY reading');
  return {
    tasks,
    screen,
    turnsDone,
    written,
    writtenOver,
    delivery,
    send(text, priority) {
      const task = tasks.create({ message: { role: 'user', parts: [{ type: 'text', text }] }, ...(priority ? { priority } : {}) });
      delivery.enqueued(task);
      return task;
    },
  };
}

/** The echoed input on its own row, then the answer, then a fresh prompt: never shown as busy. */
const echoed = (text: string) => `\r${PROMPT}${text}\r\n`;

describe('DeliveryLoop: when a turn that never looked busy is over', () => {
  it('keeps confirming while the screen moves during the idle window, then completes with all of the answer', async () => {
    const profile: Profile = { ...echoProfile, turn: screenTurns({ idleConfirmMs: 150 }) };
    // Every frame ends at an idle prompt (READY readings only); the later frames land inside the
    // first confirm window, so the window must be started again, not given up on.
    const r = await rig(profile, (text) => ({
      gapMs: 70,
      frames: [`${echoed(text)}part one\r\n${PROMPT}`, `\r\x1b[2Kpart two\r\n${PROMPT}`, `\r\x1b[2Kpart three\r\n${PROMPT}`],
    }));
    const task = r.send('hello');
    await until(() => r.tasks.get(task.id).status.state === 'completed', 5000, 'the task to complete');
    expect(r.turnsDone).toHaveLength(1);
    expect(r.turnsDone[0]?.output).toBe('part one\npart two\npart three');
    expect(r.tasks.get(task.id).receipt.state).toBe('answered');
  });

  it("finishes on the profile's turn-end row without waiting out the idle window", async () => {
    // An idle window far longer than the test may take: only the turn-end row can finish it.
    const profile: Profile = { ...echoProfile, turn: screenTurns({ idleConfirmMs: 600_000, ended: turnEnded }) };
    const r = await rig(profile, (text) => ({ gapMs: 0, frames: [`${echoed(text)}the answer\r\n✻ Worked for 0s\r\n${PROMPT}`] }));
    const task = r.send('quick one');
    await until(() => r.tasks.get(task.id).status.state === 'completed', 5000, 'the task to complete');
    expect(r.turnsDone[0]?.output).toBe('the answer\n✻ Worked for 0s');
  });

  it('an echoed message whose turn has not started yet is not a finished turn (OpenCode)', async () => {
    // OpenCode echoes the message, then sits idle-looking (no spinner, no `▣` row) for seconds
    // before its first turn starts. The old idle window ended the task there, with no reply.
    const STARTED = /^▣ /;
    const turnStarted = (lines: string[], userText: string) => {
      const start = afterLastEcho(
        lines,
        userText,
        (r) => r.startsWith(PROMPT),
        (r) => r.slice(PROMPT.length),
      );
      return start > 0 && lines.slice(start).some((r) => STARTED.test(r));
    };
    const profile: Profile = { ...echoProfile, turn: screenTurns({ idleConfirmMs: 150, ended: turnEnded, started: turnStarted }) };
    const r = await rig(profile, (text) => ({
      gapMs: 600,
      frames: [`${echoed(text)}${PROMPT}`, `\r\x1b[2K▣ started\r\nthe answer\r\n✻ Worked for 0s\r\n${PROMPT}`],
    }));
    const task = r.send('slow to start');
    await until(() => r.tasks.get(task.id).status.state === 'completed', 5000, 'the task to complete');
    expect(r.turnsDone[0]?.output).toBe('▣ started\nthe answer\n✻ Worked for 0s');

    // A CLI that never starts the turn still ends the task, after startMs of a still screen.
    const stuck = await rig({ ...echoProfile, turn: screenTurns({ idleConfirmMs: 150, ended: turnEnded, started: turnStarted, startMs: 400 }) }, (text) => ({
      gapMs: 0,
      frames: [`${echoed(text)}${PROMPT}`],
    }));
    const lost = stuck.send('never started');
    const sent = Date.now();
    await until(() => stuck.tasks.get(lost.id).status.state === 'completed', 5000, 'the task to complete');
    expect(Date.now() - sent).toBeGreaterThanOrEqual(400);
    expect(stuck.turnsDone[0]?.output).toBe('');
  });

  it('with a settle window (settleMs), waits for the answer still being typed out after the turn ended (Copilot CLI)', async () => {
    // The end-of-turn row comes first and the answer is typed out after it, frame by frame: finishing
    // on the first READY reading would keep only `part one`.
    const typed = (gapMs: number) => (text: string) => ({
      gapMs,
      frames: [`${echoed(text)}✻ Worked for 0s\r\npart one\r\n${PROMPT}`, `\r\x1b[2Kpart two\r\n${PROMPT}`, `\r\x1b[2Kpart three\r\n${PROMPT}`],
    });
    // Frames 70 ms apart against a 300 ms settle window.
    const settled = await rig({ ...echoProfile, turn: screenTurns({ idleConfirmMs: 600_000, ended: turnEnded, settleMs: 300 }) }, typed(70));
    const task = settled.send('typed out');
    await until(() => settled.tasks.get(task.id).status.state === 'completed', 5000, 'the task to complete');
    expect(settled.turnsDone[0]?.output).toBe('✻ Worked for 0s\npart one\npart two\npart three');

    // The same CLI without it: the task ends on the first frame (read 40 ms after it; the next
    // frame is 400 ms away).
    const hasty = await rig({ ...echoProfile, turn: screenTurns({ idleConfirmMs: 600_000, ended: turnEnded }) }, typed(400));
    const early = hasty.send('typed out');
    await until(() => hasty.tasks.get(early.id).status.state === 'completed', 5000, 'the task to complete');
    expect(hasty.turnsDone[0]?.output).toBe('✻ Worked for 0s\npart one');
  });

  it('a screen that moves outside the reply (an animated logo) does not hold a finished turn', async () => {
    // Copilot CLI animates its logo for seconds after start-up. The settle window watches the
    // reply (read after this message's echo, as the real profiles read it), not every cell.
    const cleanOutput: Profile['cleanOutput'] = (lines, userText) => {
      const start = afterLastEcho(
        lines,
        userText,
        (r) => r.startsWith(PROMPT),
        (r) => r.slice(PROMPT.length),
      );
      return lines
        .slice(start)
        .filter((r) => r.trim() !== '' && !r.startsWith(PROMPT))
        .join('\n');
    };
    const logo = (n: number) => `\x1b7\x1b[1;1H\x1b[2Klogo ${n}\x1b8`;
    const profile: Profile = { ...echoProfile, turn: screenTurns({ idleConfirmMs: 600_000, ended: turnEnded, settleMs: 150 }), cleanOutput };
    // A frame every 60 ms: each is read (40 ms after it), and none leaves the screen still for 150 ms.
    const r = await rig(
      profile,
      (text) => ({ gapMs: 60, frames: [`${echoed(text)}the answer\r\n✻ Worked for 0s\r\n${PROMPT}`, ...Array.from({ length: 40 }, (_, i) => logo(i + 1))] }),
      {
        history: 'logo 0\r\n',
      },
    );
    const task = r.send('hi');
    await until(() => r.tasks.get(task.id).status.state === 'completed', 5000, 'the task to complete');
    expect(r.turnsDone[0]?.output).toBe('the answer\n✻ Worked for 0s');
    // Finished while the logo was still moving (its 40 frames take 2.4 s).
    expect(r.screen.viewport()[0]).not.toBe('logo 40');
  });

  it('a priority-5 message while the last turn only settles finishes that turn instead of pressing interrupt', async () => {
    // Seen busy, then idle with the answer; a settle window longer than the test keeps it in flight.
    const r = await rig({ ...echoProfile, turn: screenTurns({ idleConfirmMs: 600_000, settleMs: 600_000 }) }, (text) => ({
      gapMs: 100,
      frames: [`${echoed(text)}⠋ thinking (esc to interrupt)`, `\r\x1b[2Kthe answer\r\n${PROMPT}`],
    }));
    const first = r.send('first');
    await until(() => r.screen.allLines().some((l) => l.includes('the answer')), 5000, 'the answer on screen');
    await pass(150);
    expect(r.tasks.get(first.id).status.state).toBe('working');
    const urgent = r.send('urgent', 5);
    await until(() => r.tasks.get(first.id).status.state === 'completed', 5000, 'the settling turn to complete');
    expect(r.turnsDone[0]).toEqual({ taskId: first.id, output: 'the answer' });
    expect(r.written).not.toContain('\x1b');
    await until(() => r.written.some((w) => w.includes('urgent')), 5000, 'the urgent message typed in');
    expect(r.tasks.get(urgent.id).status.state).toBe('working');
  });

  it('a turn seen busy that goes idle before its answer is drawn keeps the answer (OpenCode under load)', async () => {
    // OpenCode under load drew its end-of-turn row and idle footer first, the answer later: the
    // task completed with an empty reply. An empty reply now has to hold for the idle window.
    const profile: Profile = { ...echoProfile, turn: screenTurns({ idleConfirmMs: 400 }) };
    const r = await rig(profile, (text) => ({
      gapMs: 150,
      frames: [`${echoed(text)}⠋ thinking (esc to interrupt)`, `\r\x1b[2K${PROMPT}`, `\r\x1b[2Kthe answer\r\n${PROMPT}`],
    }));
    const task = r.send('drawn late');
    await until(() => r.tasks.get(task.id).status.state === 'completed', 5000, 'the task to complete');
    expect(r.turnsDone[0]?.output).toBe('the answer');

    // A turn that really answered nothing still ends, once the empty reply held for the window.
    const silent = await rig(profile, (text) => ({ gapMs: 100, frames: [`${echoed(text)}⠋ thinking (esc to interrupt)`, `\r\x1b[2K${PROMPT}`] }));
    const quiet = silent.send('say nothing');
    await until(() => silent.tasks.get(quiet.id).status.state === 'completed', 5000, 'the silent task to complete');
    expect(silent.turnsDone[0]?.output).toBe('');
  });

  it('an empty reply that gets its answer on frames with no status settles at once, not after the idle window (Copilot CLI)', async () => {
    // Copilot types the answer out after its Working footer is gone, on frames that match no
    // status rule, so no reading comes: the 500 ms empty-reply window ran out first (lag ~650 ms).
    const profile: Profile = { ...echoProfile, turn: screenTurns({ idleConfirmMs: 600_000, settleMs: 100 }) };
    const r = await rig(profile, (text) => ({
      gapMs: 100,
      frames: [`${echoed(text)}⠋ thinking (esc to interrupt)`, `\r\x1b[2K${PROMPT}`, `\r\x1b[2Kthe answer`],
    }));
    const task = r.send('typed after the footer');
    await until(() => r.tasks.get(task.id).status.state === 'completed', 5000, 'the task to complete');
    expect(r.turnsDone[0]?.output).toBe('the answer');
  });

  it('after an interrupt, the next delivery clears the input box first (Claude Code restores the prompt late)', async () => {
    // Claude Code puts the interrupted prompt back in its box just after its idle frame; the next
    // message, typed on the frame that still showed an empty box, went to the model glued to it.
    const r = await rig(
      echoProfile,
      (text) => (text.includes('slow') ? { gapMs: 0, frames: [`\r\n⠋ Thinking… (esc to interrupt)`] } : { gapMs: 0, frames: [`\r\nthe answer\r\n${PROMPT}`] }),
      { onInterrupt: () => ({ gapMs: 0, frames: [`\r\x1b[2K${PROMPT}`] }) },
    );
    const slow = r.send('slow');
    await until(() => r.screen.viewport().some((l) => l.includes('Thinking')), 5000, 'the slow turn to run');
    const urgent = r.send('urgent', 5);
    await until(() => r.tasks.get(urgent.id).status.state === 'completed', 5000, 'the urgent task to complete');
    const paste = r.written.findIndex((w) => w.includes('urgent'));
    expect(r.written.slice(r.written.indexOf('\x1b'), paste)).toContain(echoProfile.clearInputKey);
    expect(r.tasks.get(slow.id).status.state).toBe('canceled');

    // Without an interrupt before it, an empty box is not cleared.
    const next = r.send('plain');
    await until(() => r.tasks.get(next.id).status.state === 'completed', 5000, 'the plain task to complete');
    const plain = r.written.findIndex((w) => w.includes('plain'));
    expect(r.written.slice(paste + 1, plain)).not.toContain(echoProfile.clearInputKey);
  });

  it('with interrupt.retryMs, presses the interrupt again while the CLI is still busy (a lost key)', async () => {
    let presses = 0;
    const profile: Profile = { ...echoProfile, interrupt: { kind: 'key', key: '\x1b', retryMs: 300 } };
    const r = await rig(
      profile,
      (text) =>
        text.includes('urgent') ? { gapMs: 0, frames: [`\r\nthe answer\r\n${PROMPT}`] } : { gapMs: 0, frames: [`\r\n⠋ Thinking… (esc to interrupt)`] },
      // The first press is lost; the second one stops the turn.
      { onInterrupt: () => (++presses === 1 ? { gapMs: 0, frames: [] } : { gapMs: 0, frames: [`\r\x1b[2K${PROMPT}`] }) },
    );
    r.send('slow');
    await until(() => r.screen.viewport().some((l) => l.includes('Thinking')), 5000, 'the slow turn to run');
    const urgent = r.send('urgent', 5);
    await until(() => r.tasks.get(urgent.id).status.state === 'completed', 5000, 'the urgent task to complete');
    expect(presses).toBe(2);
    // Once the CLI is idle it is not pressed again.
    await pass(500);
    expect(presses).toBe(2);
  });

  it("after an interrupt, waits the profile's interrupt.settleMs before typing the next message", async () => {
    // Like Copilot CLI: idle-looking at once after the interrupt key, the old turn only wound down
    // (`Operation cancelled`) 200 ms later; input typed before that would be lost with it.
    const profile: Profile = { ...echoProfile, interrupt: { kind: 'key', key: '\x1b', settleMs: 400 } };
    const r = await rig(
      profile,
      (text) =>
        text.includes('urgent') ? { gapMs: 0, frames: [`\r\nthe answer\r\n${PROMPT}`] } : { gapMs: 0, frames: [`\r\n⠋ Thinking… (esc to interrupt)`] },
      { onInterrupt: () => ({ gapMs: 200, frames: [`\r\x1b[2K${PROMPT}`, `\r\x1b[2KOperation cancelled\r\n${PROMPT}`] }) },
    );
    const slow = r.send('slow');
    await until(() => r.screen.viewport().some((l) => l.includes('Thinking')), 5000, 'the slow turn to run');
    const urgent = r.send('urgent', 5);
    await until(() => r.tasks.get(urgent.id).status.state === 'completed', 5000, 'the urgent task to complete');
    expect(r.tasks.get(slow.id).status.state).toBe('canceled');
    const paste = r.written.findIndex((w) => w.includes('urgent'));
    expect(r.writtenOver[paste]).toContain('Operation cancelled');
  });

  it('text on a screen with no input box drawn is not an echo: the submit key goes again', async () => {
    // A half-drawn frame right after the submit key shows the pasted text with no input box
    // around it, then the whole frame shows it still in the box: the CLI dropped the key (Claude
    // Code just after start-up). Calling the half frame an echo would leave the task working
    // forever with its text unsent.
    let submits = 0;
    const profile: Profile = { ...echoProfile, submit: { ...echoProfile.submit, confirmMs: 300 } };
    const r = await rig(profile, (text) =>
      ++submits === 1
        ? { gapMs: 100, frames: [`\r\n${text}\r\n(drawing)`, `\r\x1b[2K${PROMPT}${text}`] }
        : { gapMs: 0, frames: [`\r\nthe answer\r\n${PROMPT}`] },
    );
    const task = r.send('hello');
    await until(() => r.tasks.get(task.id).status.state === 'completed', 5000, 'the task to complete');
    expect(submits).toBe(2);
  });

  it("does not count a previous turn's turn-end row: without a new one the idle window still applies", async () => {
    const profile: Profile = { ...echoProfile, turn: screenTurns({ idleConfirmMs: 600_000, ended: turnEnded }) };
    const r = await rig(profile, (text) => ({ gapMs: 0, frames: [`${echoed(text)}no marker this time\r\n${PROMPT}`] }), {
      history: `${PROMPT}earlier\r\nearlier answer\r\n✻ Worked for 2s\r\n`,
    });
    const task = r.send('second');
    await until(() => r.screen.allLines().some((l) => l.includes('no marker this time')), 5000, 'the answer on screen');
    // Several settled READY readings later, the task still waits out its (long) idle window.
    await pass(300);
    expect(r.tasks.get(task.id).status.state).toBe('working');
    expect(r.turnsDone).toHaveLength(0);
  });
});

describe('DeliveryLoop: while start-up holds the inbox (admits)', () => {
  it('types in only what is admitted; the rest waits in the inbox, in order, and a priority-5 one interrupts nothing', async () => {
    const profile: Profile = { ...echoProfile, turn: screenTurns({ idleConfirmMs: 100 }) };
    let startedUp = false;
    let instructionId = '';
    const r = await rig(
      profile,
      (text) => ({ gapMs: 50, frames: [`${echoed(text)}⠋ Thinking… (esc to interrupt)\r\n`, `\r\x1b[2Kdone: ${text}\r\n${PROMPT}`] }),
      { admits: (t) => startedUp || t.id === instructionId },
    );
    const early = r.send('came during start-up');
    const urgent = r.send('urgent during start-up', 5);
    await pass(1000);
    expect(r.written).toEqual([]);
    expect(r.tasks.get(early.id).receipt.state).toBe('queued');

    const instruction = r.tasks.create({ message: { role: 'user', parts: [{ type: 'text', text: 'start-up instruction' }] }, priority: 5 });
    instructionId = instruction.id;
    r.delivery.enqueued(instruction, { interrupt: false });
    await until(() => r.written.some((w) => w.includes('start-up instruction')), 2000, 'the instruction to be typed in');
    // Mid-turn of the instruction: another priority-5 message does not press the interrupt key.
    const second = r.send('urgent while the instruction runs', 5);
    await until(() => r.tasks.get(instruction.id).status.state === 'completed', 5000, 'the instruction to complete');
    expect(r.written).not.toContain('\x1b'); // the echo profile's interrupt key, as its own write
    expect(r.tasks.get(early.id).receipt.state).toBe('queued');

    startedUp = true;
    r.delivery.pump();
    await until(() => [early, urgent, second].every((t) => r.tasks.get(t.id).status.state === 'completed'), 10_000, 'the held messages to complete');
    const pastes = r.written.filter((w) => w.includes('\x1b[200~')).map((w) => /\x1b\[200~([\s\S]*)\x1b\[201~/.exec(w)?.[1]);
    // The instruction first, then the inbox by priority and arrival.
    expect(pastes).toEqual(
      ['start-up instruction', 'urgent during start-up', 'urgent while the instruction runs', 'came during start-up'].map((t) => `A2A: ${t}`),
    );
  });
});
