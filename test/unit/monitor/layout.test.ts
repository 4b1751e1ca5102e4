import { describe, expect, it } from 'vitest';
import type { ListColumn } from '../../../src/config/keys.js';
import { fitCell, fitColumns, GAP, truncate } from '../../../src/monitor/layout.js';

const COLUMNS: ListColumn[] = ['ID', 'NAME', 'STATUS', 'CURRENT', 'WORKING_DIR'];
const cells = (over: Partial<Record<ListColumn, string>>) =>
  ({ ID: 'synapse-echo-8190', NAME: 'bob', STATUS: 'PROCESSING', CURRENT: 'x'.repeat(80), WORKING_DIR: '/home/ann/work/project', ...over }) as Record<
    ListColumn,
    string
  >;
const total = (widths: number[]) => widths.reduce((a, b) => a + b, 0) + GAP * (widths.length - 1);

describe('fitting the table to the terminal', () => {
  it('on a wide terminal a column is as wide as its widest cell, CURRENT at most 60', () => {
    const widths = fitColumns(COLUMNS, [cells({})], 300);
    expect(widths).toEqual(['synapse-echo-8190'.length, 'NAME'.length, 'PROCESSING'.length, 60, '/home/ann/work/project'.length]);
  });

  it('on a narrow terminal CURRENT gives way first, then WORKING_DIR; ID and STATUS keep their width', () => {
    const wide = fitColumns(COLUMNS, [cells({})], 300);
    const narrow = fitColumns(COLUMNS, [cells({})], 80);
    expect(total(narrow)).toBe(80);
    expect(narrow[0]).toBe(wide[0]);
    expect(narrow[2]).toBe(wide[2]);
    expect(narrow[3]).toBeLessThan(wide[3]!);
    expect(narrow[4]).toBe(wide[4]);
    const tiny = fitColumns(COLUMNS, [cells({})], 50);
    expect(tiny[3]).toBe(7); // 'CURRENT' still fits its header
    expect(tiny[4]).toBeLessThan(wide[4]!);
  });

  it('truncates by display width (a CJK character takes two cells) and marks the cut', () => {
    expect(truncate('fix the login bug', 8)).toBe('fix the…');
    expect(truncate('日本語のタスク', 7)).toBe('日本語…');
    expect(truncate('short', 10)).toBe('short');
    expect(fitCell('日本', 6)).toBe('日本  ');
  });

  it('a path keeps its end: which project it is, not the home it is in', () => {
    expect(fitCell('/home/ann/work/project', 12, 'WORKING_DIR')).toBe('…ork/project');
    expect(fitCell('fix the login bug', 12, 'CURRENT')).toBe('fix the log…');
  });
});
