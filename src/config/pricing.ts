/**
 * The price table for the estimated cost in `synapse history stats` (issue 20 §3): US dollars per
 * million tokens, per model. Settings `pricing.<model>` add models or replace a price here. A
 * model is priced by its own entry, else by the longest entry its name starts with
 * (`claude-sonnet` prices `claude-sonnet-4-5-20250929`); a `provider/` prefix (OpenCode's
 * `anthropic/claude-…`) is ignored. The defaults are list prices as published when this was
 * written: ESTIMATES, with no batch, long-context or regional surcharges. Set your own where it matters.
 */

/** Tokens of one kind of traffic. `input_tokens` is the prompt without its cached part. */
export interface TokenCounts {
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
}

/** US dollars per million tokens. Cache prices default to the input price when not given. */
export interface ModelPrice {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
}

export const DEFAULT_PRICES: Readonly<Record<string, ModelPrice>> = {
  // Anthropic (cache write: the 5-minute cache)
  'claude-opus-4-1': { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 },
  'claude-opus-4-2025': { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 },
  'claude-opus': { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 },
  'claude-sonnet': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  'claude-haiku': { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 },
  'claude-3-5-haiku': { input: 0.8, output: 4, cacheRead: 0.08, cacheWrite: 1 },
  // OpenAI
  'gpt-5': { input: 1.25, output: 10, cacheRead: 0.125 },
  'gpt-5-mini': { input: 0.25, output: 2, cacheRead: 0.025 },
  'gpt-5-nano': { input: 0.05, output: 0.4, cacheRead: 0.005 },
  'gpt-4.1': { input: 2, output: 8, cacheRead: 0.5 },
  'gpt-4o': { input: 2.5, output: 10, cacheRead: 1.25 },
  o3: { input: 2, output: 8, cacheRead: 0.5 },
  'o4-mini': { input: 1.1, output: 4.4, cacheRead: 0.275 },
  // Google (prompts up to 200k tokens)
  'gemini-2.5-pro': { input: 1.25, output: 10, cacheRead: 0.31 },
  'gemini-2.5-flash': { input: 0.3, output: 2.5, cacheRead: 0.075 },
  'gemini-2.5-flash-lite': { input: 0.1, output: 0.4, cacheRead: 0.025 },
  'gemini-3-pro': { input: 2, output: 12, cacheRead: 0.2 },
};

/** The entry that prices `model`, or null when none does. */
export function priceFor(model: string, table: Readonly<Record<string, ModelPrice>>): { key: string; price: ModelPrice } | null {
  const name = model.includes('/') ? model.slice(model.lastIndexOf('/') + 1) : model;
  const exact = table[name] ?? table[model];
  if (exact) return { key: table[name] ? name : model, price: exact };
  let best: string | null = null;
  for (const key of Object.keys(table)) if (name.startsWith(key) && (best === null || key.length > best.length)) best = key;
  return best === null ? null : { key: best, price: table[best]! };
}

/** What `counts` cost at `price`, in US dollars. */
export function costOf(counts: TokenCounts, price: ModelPrice): number {
  const perToken = (usdPerMillion: number) => usdPerMillion / 1_000_000;
  return (
    counts.input_tokens * perToken(price.input) +
    counts.output_tokens * perToken(price.output) +
    counts.cache_read_tokens * perToken(price.cacheRead ?? price.input) +
    counts.cache_write_tokens * perToken(price.cacheWrite ?? price.input)
  );
}

/** The defaults with the settings' `pricing` entries over them. */
export function priceTable(overrides: Readonly<Record<string, ModelPrice>>): Record<string, ModelPrice> {
  return { ...DEFAULT_PRICES, ...overrides };
}
