import { describe, expect, it } from 'vitest';
import { currentText, editingText, elapsed, monitorCells, oneLine, shortDir, skillSetOf, statusColour, transportOf } from '../../../src/monitor/columns.js';
import { entry, row } from './rows.js';

const NOW = Date.parse('2026-01-01T00:10:00.000Z');

describe('the monitor cells', () => {
  it('peer text loses its escape sequences, control and format characters, and becomes one line', () => {
    expect(oneLine('fix \x1b[31mthe\x1b[0m\nlogin\x07 bug\u202e')).toBe('fix [31mthe[0m login bug');
    expect(oneLine(null)).toBe('');
    const cells = monitorCells(row({ name: 'bo\x1b]0;pwned\x07b', current_task_preview: '\x1b[2Jclear' }), NOW, undefined);
    expect(cells.NAME).toBe('bo]0;pwnedb');
    expect(Object.values(cells).join('')).not.toMatch(/\p{Cc}/u);
  });

  it('CURRENT is the task preview with the time since the task arrived; - when idle', () => {
    expect(currentText(entry({ current_task_preview: 'review the diff', task_received_at: '2026-01-01T00:07:55.000Z' }), NOW)).toBe('review the diff (2m05s)');
    expect(currentText(entry({ current_task_preview: null }), NOW)).toBe('-');
    expect(elapsed('2026-01-01T00:09:51.000Z', NOW)).toBe('9s');
    expect(elapsed('2025-12-31T22:58:00.000Z', NOW)).toBe('1h12m');
  });

  it('EDITING_FILE names the first locked file and how many more; - with none; says so when the store is unreadable', () => {
    expect(editingText({ file: 'src/a.ts', more: 2 })).toBe('src/a.ts (+2)');
    expect(editingText({ file: 'src/a.ts', more: 0 })).toBe('src/a.ts');
    expect(editingText(null)).toBe('-');
    expect(editingText('unreadable')).toBe('(file-safety db unreadable)');
  });

  it("TRANSPORT: HTTP or HTTPS for ours; the original's transfer in flight, kept 3 s after it ends; - when idle", () => {
    expect(transportOf(entry(), NOW)).toBe('HTTP');
    expect(transportOf(entry({ endpoint: 'https://127.0.0.1:8190' }), NOW)).toBe('HTTPS');
    const original = { heartbeat_at: null, endpoint: 'http://localhost:8100' };
    expect(transportOf(entry({ ...original, active_transport: 'UDS→' }), NOW)).toBe('UDS→');
    expect(transportOf(entry({ ...original, last_transport: '→TCP', transport_updated_at: NOW / 1000 - 2 }), NOW)).toBe('→TCP');
    expect(transportOf(entry({ ...original, last_transport: '→TCP', transport_updated_at: NOW / 1000 - 5 }), NOW)).toBe('-');
  });

  it('SKILL_SET comes from the entry of a spawned agent; WORKING_DIR shows the home directory as ~', () => {
    expect(skillSetOf(entry({ skill_set: 'reviewer' }))).toBe('reviewer');
    expect(skillSetOf(entry())).toBe('-');
    expect(shortDir('/home/ann/project', '/home/ann')).toBe('~/project');
    expect(shortDir('/home/annie/x', '/home/ann')).toBe('/home/annie/x');
    expect(shortDir('/srv/x', undefined)).toBe('/srv/x');
  });

  it('every status of ours and of the original has a colour; an unknown one has none', () => {
    for (const s of ['STARTING', 'READY', 'PROCESSING', 'WAITING', 'DONE', 'EXITED', 'WAITING_FOR_INPUT', 'RATE_LIMITED']) expect(statusColour(s)).toBeTruthy();
    expect(statusColour('READY')).toBe('green');
    expect(statusColour('PROCESSING')).toBe('yellow');
    expect(statusColour('SOMETHING_NEW')).toBeUndefined();
  });
});
