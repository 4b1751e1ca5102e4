import { costOf, priceFor, type ModelPrice, type TokenCounts } from '../config/pricing.js';
import { emptyCounts, UNKNOWN_MODEL } from '../profiles/usage-records.js';
import type { UsageStats } from './history-schema.js';

/** A history row with usage: the totals as columns, the per-model split as JSON. */
export interface UsageRow extends TokenCounts {
  agent_id: string;
  usage: string | null;
}

function add(into: TokenCounts, c: TokenCounts): void {
  into.input_tokens += c.input_tokens;
  into.output_tokens += c.output_tokens;
  into.cache_read_tokens += c.cache_read_tokens;
  into.cache_write_tokens += c.cache_write_tokens;
}

/** The per-model split of a row; a row without one counts as one unknown model. */
function modelsOf(row: UsageRow): Record<string, TokenCounts> {
  try {
    const detail = JSON.parse(row.usage ?? '{}') as { by_model?: Record<string, Partial<TokenCounts>> };
    const out: Record<string, TokenCounts> = {};
    for (const [model, c] of Object.entries(detail.by_model ?? {})) {
      out[model] = {
        input_tokens: Number(c.input_tokens) || 0,
        output_tokens: Number(c.output_tokens) || 0,
        cache_read_tokens: Number(c.cache_read_tokens) || 0,
        cache_write_tokens: Number(c.cache_write_tokens) || 0,
      };
    }
    if (Object.keys(out).length > 0) return out;
  } catch {
    // a damaged split: the totals still count
  }
  return { [UNKNOWN_MODEL]: { ...emptyCounts(), ...pickCounts(row) } };
}

function pickCounts(row: UsageRow): TokenCounts {
  return {
    input_tokens: row.input_tokens ?? 0,
    output_tokens: row.output_tokens ?? 0,
    cache_read_tokens: row.cache_read_tokens ?? 0,
    cache_write_tokens: row.cache_write_tokens ?? 0,
  };
}

class Totals {
  readonly counts = emptyCounts();
  tasks = 0;
  readonly models = new Map<string, TokenCounts>();

  add(row: UsageRow): void {
    add(this.counts, pickCounts(row));
    this.tasks++;
    for (const [model, c] of Object.entries(modelsOf(row))) {
      let m = this.models.get(model);
      if (!m) this.models.set(model, (m = emptyCounts()));
      add(m, c);
    }
  }

  stats(prices: Readonly<Record<string, ModelPrice>>): UsageStats {
    let cost: number | null = null;
    const unpriced: string[] = [];
    const byModel: UsageStats['by_model'] = {};
    for (const [model, c] of [...this.models].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const priced = priceFor(model, prices);
      const modelCost = priced ? costOf(c, priced.price) : null;
      if (modelCost === null) unpriced.push(model);
      else cost = (cost ?? 0) + modelCost;
      byModel[model] = { ...c, estimated_cost_usd: modelCost, priced_as: priced?.key ?? null };
    }
    return { ...this.counts, tasks: this.tasks, by_model: byModel, estimated_cost_usd: cost, unpriced_models: unpriced };
  }
}

/** Usage totals per agent and overall, priced with `prices`; null where no task has usage. */
export function usageStats(
  rows: readonly UsageRow[],
  prices: Readonly<Record<string, ModelPrice>>,
): { total: UsageStats | null; perAgent: Map<string, UsageStats> } {
  const all = new Totals();
  const agents = new Map<string, Totals>();
  for (const row of rows) {
    all.add(row);
    let a = agents.get(row.agent_id);
    if (!a) agents.set(row.agent_id, (a = new Totals()));
    a.add(row);
  }
  return {
    total: all.tasks > 0 ? all.stats(prices) : null,
    perAgent: new Map([...agents].map(([id, t]) => [id, t.stats(prices)])),
  };
}
