import { SynapseError } from '../errors.js';

/** Rules both history backends share: statistics helpers, search terms, what a cleanup removes. */

export function median(sorted: number[]): number | null {
  if (sorted.length === 0) return null;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : Math.round((sorted[mid - 1]! + sorted[mid]!) / 2);
}

export function rate(completed: number, total: number): number | null {
  return total > 0 ? completed / total : null;
}

/** The trimmed keywords of a search; each must hold a letter or digit. */
export function searchTerms(keywords: string[]): string[] {
  const terms = keywords.map((k) => k.trim()).filter((k) => k.length > 0);
  if (terms.length === 0 || terms.some((t) => !/[\p{L}\p{N}]/u.test(t))) {
    throw new SynapseError('usage', 'search needs keywords with letters or digits, e.g. synapse history search parser error');
  }
  return terms;
}

export function checkCleanup(options: { days?: number; maxBytes?: number }): void {
  if (options.days === undefined && options.maxBytes === undefined) throw new SynapseError('usage', 'cleanup needs --days N or --max-size MB');
}

/** An entry as a cleanup sees it, newest first. */
export interface SizedEntry {
  seq: number;
  finished_at: string;
  bytes: number;
}

/**
 * Which entries a cleanup removes: finished before `cutoff`, then the oldest of the rest beyond
 * the size budget. `ratio` is what one payload byte costs in storage (at least 1).
 */
export function pickDoomed(
  newestFirst: readonly SizedEntry[],
  cutoff: string | null,
  maxBytes: number | undefined,
  ratio: number,
): { seqs: number[]; estimatedBytes: number } {
  const seqs: number[] = [];
  let kept = 0;
  let estimated = 0;
  for (const r of newestFirst) {
    const size = r.bytes * ratio;
    const tooOld = cutoff !== null && r.finished_at < cutoff;
    const overBudget = maxBytes !== undefined && kept + size > maxBytes;
    if (tooOld || overBudget) {
      seqs.push(r.seq);
      estimated += size;
    } else {
      kept += size;
    }
  }
  return { seqs, estimatedBytes: Math.round(estimated) };
}
