import { SynapseError } from '../errors.js';
import type { Redactor } from '../redact.js';

/** What both shared-memory backends check before a note is written. */

const MAX_KEY = 200;
const MAX_CONTENT = 1_000_000;
const MAX_TAGS = 20;
const CONTROL = /[\u0000-\u001f\u007f]/;

export function validateKey(key: string): string {
  const k = typeof key === 'string' ? key.trim() : '';
  if (k.length === 0) throw new SynapseError('usage', 'memory key must not be empty');
  if (k.length > MAX_KEY) throw new SynapseError('invalid_input', `memory key is too long (${k.length} > ${MAX_KEY} characters)`);
  if (CONTROL.test(k)) throw new SynapseError('invalid_input', 'memory key must not contain control characters');
  return k;
}

/** `["API", " db ", "api"]` → `["api", "db"]`; also accepts comma-separated strings inside. */
export function normalizeTags(tags: string[]): string[] {
  const out = new Set<string>();
  for (const t of tags.flatMap((x) => x.split(','))) {
    const tag = t.trim().toLowerCase();
    if (tag.length === 0) continue;
    if (tag.length > 50 || CONTROL.test(tag)) throw new SynapseError('invalid_input', `invalid tag '${tag.slice(0, 60)}': at most 50 printable characters`);
    out.add(tag);
  }
  if (out.size > MAX_TAGS) throw new SynapseError('invalid_input', `too many tags (${out.size} > ${MAX_TAGS})`);
  return [...out];
}

/** A note as it may be saved: key checked, content trimmed and redacted (issue 21 §4), tags normalised. */
export function prepareSave(
  input: { key: string; content: string; tags?: string[]; author?: string | null },
  redact: Redactor,
): { key: string; content: string; tags: string[]; author: string | null } {
  const key = validateKey(input.key);
  const content = typeof input.content === 'string' ? redact(input.content.trim()) : '';
  if (content.length === 0) throw new SynapseError('usage', 'memory content must not be empty');
  if (content.length > MAX_CONTENT) throw new SynapseError('invalid_input', `memory content is too long (${content.length} > ${MAX_CONTENT} characters)`);
  const tags = normalizeTags(input.tags ?? []);
  const author = input.author?.trim() || null;
  return { key, content, tags, author };
}

/** The words of a search query (operators in user text are dropped). */
export function searchWords(query: string): string[] {
  const words = query.match(/[\p{L}\p{N}_]+/gu) ?? [];
  if (words.length === 0) throw new SynapseError('usage', 'search query needs at least one word');
  return words;
}
