import { z } from 'zod';
import type { Usage } from './memory.js';

const tokenPricesSchema = z.object({
  input: z.number().min(0),
  output: z.number().min(0),
  cacheRead: z.number().min(0).default(0),
  cacheWrite: z.number().min(0).default(0),
});

/**
 * US dollars per million tokens, per model: the price table in config (MEMFADE_PRICES). Batch
 * calls (Anthropic Message Batches, the OpenAI Batch API) cost a fraction of these: `batch` gives
 * their prices outright, else `batchFactor` (default 0.5, what both providers charge) scales
 * every sync price.
 */
export const modelPriceSchema = tokenPricesSchema.extend({
  batchFactor: z.number().min(0).max(1).optional(),
  batch: tokenPricesSchema.optional(),
});
export type ModelPrice = z.infer<typeof modelPriceSchema>;
export const priceTableSchema = z.record(z.string(), modelPriceSchema);
export type PriceTable = z.infer<typeof priceTableSchema>;

export const DEFAULT_BATCH_FACTOR = 0.5;

/** The per-token prices that apply to a sync call, or to a batch call. */
function pricesFor(price: ModelPrice, batch: boolean): z.infer<typeof tokenPricesSchema> {
  if (!batch) return price;
  if (price.batch) return price.batch;
  const factor = price.batchFactor ?? DEFAULT_BATCH_FACTOR;
  return {
    input: price.input * factor,
    output: price.output * factor,
    cacheRead: price.cacheRead * factor,
    cacheWrite: price.cacheWrite * factor,
  };
}

/** Cost in US dollars of the tokens one call (or one memory, or one run) used; `batch` for batch calls. */
export function costOf(
  usage: Usage,
  price: ModelPrice | undefined,
  options: { batch?: boolean } = {},
): number {
  if (!price) return 0;
  const p = pricesFor(price, options.batch ?? false);
  const dollars =
    usage.inputTokens * p.input +
    usage.outputTokens * p.output +
    usage.cacheReadTokens * p.cacheRead +
    usage.cacheWriteTokens * p.cacheWrite;
  return dollars / 1_000_000;
}
