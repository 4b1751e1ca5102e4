import stringWidth from 'string-width';
import type { ListColumn } from '../config/keys.js';

/*
 * Fitting the monitor's table into the terminal: widths by display cells (a CJK character or an
 * emoji takes two), the long free-text columns giving way first, and truncation with `…`.
 */

export const GAP = 2;

/** The most a column takes even when the terminal is wide (a long task preview stays readable). */
const MAX_WIDTH: Partial<Record<ListColumn, number>> = { CURRENT: 60, ROLE: 30, WORKING_DIR: 48, EDITING_FILE: 36 };

/** Who gives way first when the table is too wide; the rest keep their width. */
const SHRINK_ORDER: readonly ListColumn[] = ['CURRENT', 'WORKING_DIR', 'ROLE', 'EDITING_FILE', 'SKILL_SET', 'NAME', 'TRANSPORT', 'ID'];
const MIN_WIDTH = 6;

/** Columns whose start is dropped, not their end (a path's last parts are what tell it apart). */
const KEEP_END: ReadonlySet<ListColumn> = new Set(['WORKING_DIR', 'EDITING_FILE']);

/** Widths for the columns so that the rows fit in `width` cells (with GAP between them) where they can. */
export function fitColumns(columns: readonly ListColumn[], rows: ReadonlyArray<Record<ListColumn, string>>, width: number): number[] {
  const widths = columns.map((c) => Math.min(MAX_WIDTH[c] ?? Infinity, Math.max(stringWidth(c), ...rows.map((r) => stringWidth(r[c])))));
  const total = () => widths.reduce((a, b) => a + b, 0) + GAP * Math.max(0, columns.length - 1);
  for (const column of SHRINK_ORDER) {
    const i = columns.indexOf(column);
    if (i < 0) continue;
    const excess = total() - width;
    if (excess <= 0) break;
    const floor = Math.max(MIN_WIDTH, stringWidth(column));
    widths[i] = Math.max(floor, widths[i]! - excess);
  }
  return widths;
}

/** Drops characters from the end (or the start) until the text takes at most `width` cells, marking the cut with `…`. */
export function truncate(text: string, width: number, keepEnd = false): string {
  if (stringWidth(text) <= width) return text;
  if (width <= 1) return width === 1 ? '…' : '';
  const chars = [...text];
  let kept = '';
  let used = 0;
  for (const ch of keepEnd ? chars.reverse() : chars) {
    const w = stringWidth(ch);
    if (used + w > width - 1) break;
    kept = keepEnd ? ch + kept : kept + ch;
    used += w;
  }
  return keepEnd ? `…${kept}` : `${kept}…`;
}

/** The text truncated to `width` cells and padded with spaces to exactly `width`. */
export function fitCell(text: string, width: number, column?: ListColumn): string {
  const cut = truncate(text, width, column !== undefined && KEEP_END.has(column));
  return cut + ' '.repeat(Math.max(0, width - stringWidth(cut)));
}
