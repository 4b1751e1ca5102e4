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
