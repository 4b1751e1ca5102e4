/** Drops blank lines at the start and end, keeps inner blank lines (paragraphs). */
export function trimBlankEdges(lines: string[]): string[] {
  let start = 0;
  let end = lines.length;
  while (start < end && (lines[start] ?? '').trim() === '') start++;
  while (end > start && (lines[end - 1] ?? '').trim() === '') end--;
  return lines.slice(start, end);
}

/** Normalises text for fuzzy comparison of echoed input: no whitespace, no box glyphs. */
export function squash(text: string): string {
  return text.replace(/[\s│╭╮╰╯─❯>]+/g, '');
}

/**
 * Index of the row after the last echo of the user's message (a row the `isPrompt` test accepts
 * whose text starts the message), or 0 when the echo is not on screen: what came before it is
 * older transcript, not this turn's answer.
 */
export function afterLastEcho(rows: string[], userText: string, isPrompt: (row: string) => boolean, strip: (row: string) => string = (r) => r): number {
  const user = squash(userText);
  for (let i = rows.length - 1; i >= 0; i--) {
    const row = rows[i] ?? '';
    const echoed = squash(strip(row));
    if (isPrompt(row) && echoed.length > 0 && user.startsWith(echoed.slice(0, 40))) return i + 1;
  }
  return 0;
}

/** The text in a multi-row input box: rows `first` up to `end` (exclusive), the prompt glyph taken off the first. */
export function boxText(rows: string[], box: { first: number; end: number }, prompt: RegExp): string {
  return rows
    .slice(box.first, box.end)
    .map((r, k) => (k === 0 ? r.replace(prompt, '') : r).trim())
    .join('\n')
    .trim();
}

/**
 * Lines that appeared since `before`: everything from the first line that differs. `trimmedSince`
 * is how many lines a full scrollback dropped off the top in between (`Screen.linesAt`): line `i`
 * now is line `i + trimmedSince` of `before`, or every line would look new.
 */
export function linesSince(before: string[], after: string[], trimmedSince = 0): string[] {
  let i = 0;
  while (i + trimmedSince < before.length && i < after.length && before[i + trimmedSince] === after[i]) i++;
  return after.slice(i);
}
