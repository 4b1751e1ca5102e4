/** The notice sent to peers about a saved note: one line, so it reads well when injected into a terminal. */
export function memoryNotice(key: string, content: string, author: string | null): string {
  const flat = content.replace(/\s+/g, ' ').trim();
  const short = flat.length > 100 ? `${flat.slice(0, 99)}…` : flat;
  const quoted = /\s/.test(key) ? `"${key}"` : key;
  return `[shared memory] ${author ?? 'someone'} saved ${quoted}: ${short} (read it: synapse memory show ${quoted})`;
}
