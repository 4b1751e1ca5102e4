import fs from 'node:fs';
import type { Task } from '../agent-api/task.js';
import { redactDeep, type Redactor } from '../redact.js';
import type { DeliveryLoop } from './delivery.js';
import type { Screen } from './screen.js';
import type { ScreenStatusTracker } from './screen-status.js';

/**
 * `SYNAPSE_SCREEN_TRACE=<file>`: appends one JSON line per screen reading (status and change
 * counter, plus the viewport when the screen changed since the last one) and per delivery step
 * (a delivery held for the human included), so a wrong status or reply can be replayed frame by
 * frame. Off unless asked for; it writes synchronously and is for diagnosis.
 */
export function traceScreens(file: string, screen: Screen, tracker: ScreenStatusTracker, delivery: DeliveryLoop, redact: Redactor): void {
  const fd = fs.openSync(file, 'a');
  const started = Date.now();
  const write = (record: Record<string, unknown>) => {
    try {
      // The screen shows what was typed in: credentials are redacted here too (issue 21 §4).
      fs.writeSync(fd, `${JSON.stringify(redactDeep({ ms: Date.now() - started, ...record }, redact))}\n`);
    } catch {
      // A full disk must not stop the agent.
    }
  };
  let lastSeq = -1;
  tracker.on('reading', (r: { status: string; seq: number }) => {
    if (r.seq === lastSeq) {
      write({ kind: 'reading', status: r.status, seq: r.seq });
      return;
    }
    lastSeq = r.seq;
    write({ kind: 'reading', status: r.status, seq: r.seq, viewport: screen.viewport().map((l) => l.trimEnd()) });
  });
  // Each time the loop decides to wait for the human (unsent text, or typing just now).
  delivery.on('held', (t: Task, forMs: number) => write({ kind: 'held', task: t.id, for_ms: forMs, seq: screen.seq }));
  delivery.on('delivering', (t: Task) => write({ kind: 'delivering', task: t.id, seq: screen.seq }));
  delivery.on('submitted', (t: Task) => write({ kind: 'submitted', task: t.id, seq: screen.seq }));
  delivery.on('interrupt', () => write({ kind: 'interrupt', seq: screen.seq }));
  delivery.on('finished', (id: string, output: string) =>
    write({ kind: 'finished', task: id, seq: screen.seq, output, viewport: screen.viewport().map((l) => l.trimEnd()) }),
  );
}
