import { z } from 'zod';
import type { Usage } from './memory.js';

/** US dollars per million tokens, per model: the price table in config (MEMFADE_PRICES). */
export const modelPriceSchema = z.object({
  input: z.number().min(0),
  output: z.number().min(0),
  cacheRead: z.number().min(0).default(0),
  cacheWrite: z.number().min(0).default(0),
});
export type ModelPrice = z.infer<typeof modelPriceSchema>;
export const priceTableSchema = z.record(z.string(), modelPriceSchema);
export type PriceTable = z.infer<typeof priceTableSchema>;

/** Cost in US dollars of the tokens one call (or one memory, or one run) used. */
export function costOf(usage: Usage, price: ModelPrice | undefined): number {
  if (!price) return 0;
  const dollars =
    usage.inputTokens * price.input +
    usage.outputTokens * price.output +
    usage.cacheReadTokens * price.cacheRead +
    usage.cacheWriteTokens * price.cacheWrite;
  return dollars / 1_000_000;
}
