/**
 * Peer text is data: it must never reach the terminal as a key press or escape sequence.
 * Line breaks are normalised to \n; ESC, every other C0 control, DEL and every C1 control
 * are removed, so a message cannot end a bracketed paste, press Enter/Ctrl-C or move the cursor.
 */
export function sanitizePeerText(text: string): string {
  return text.replace(/\r\n?/g, '\n').replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '');
}

/** For names and ids shown inside the frame: one line, no controls, no brackets. */
export function sanitizeLabel(text: string, max = 64): string {
  return sanitizePeerText(text)
    .replace(/[\n\t[\]]/g, ' ')
    .trim()
    .slice(0, max);
}
