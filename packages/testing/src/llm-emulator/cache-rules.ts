/**
 * The providers' prompt-caching rules, per model, as the emulator applies them (issue 27 item 3):
 * one table, easy to update when a provider changes its rules.
 *
 * - Anthropic caches a prefix marked with cache_control only if it is at least the model's minimum
 *   cacheable length; a shorter one is billed as plain input, with no cache write and no read.
 * - OpenAI caches automatically, only prompts of 1,024 tokens or more, and credits the cached part
 *   in 128-token increments (1,024, 1,152, 1,280...).
 * - Both keep an entry for 5 minutes after its last use (the default TTL).
 * - Cache hits inside a batch are best-effort (Anthropic: "cache hits in batches are best-effort";
 *   batches run concurrently, so a request may run before the entry it would read exists).
 *
 * A model name not in the table (the tests' 'emulated', 'claude-test', 'gpt-test') gets the
 * permissive default: any prefix is cached and every batch hit lands, so tests about other things
 * keep today's exact cache figures. The strict rules apply to real model names, and with them the
 * output definition's tokens (definition-tokens.ts).
 */

export interface CacheRule {
  /** The shortest prefix (tokens) that is cached at all. */
  minTokens: number;
  /** The cached part is credited in multiples of this (OpenAI: 128); 1 for Anthropic. */
  increment: number;
  /** Whether this is a real provider rule (strict) or the permissive default for test names. */
  strict: boolean;
}

/** Minimum cacheable prefix, by model-name prefix; the first match wins, so list longer names first. */
const RULES: Array<[prefix: string, minTokens: number, increment: number]> = [
  // Anthropic (docs.claude.com, "Prompt caching", cache limitations).
  ['claude-opus-4-6', 4_096, 1],
  ['claude-opus-4-5', 4_096, 1],
  ['claude-haiku-4-5', 4_096, 1],
  ['claude-opus-4', 1_024, 1], // Opus 4 and 4.1
  ['claude-sonnet-4', 1_024, 1], // Sonnet 4 and 4.5
  ['claude-3-7-sonnet', 1_024, 1],
  ['claude-3-5-haiku', 2_048, 1],
  ['claude-3-haiku', 2_048, 1],
  // OpenAI (platform.openai.com, "Prompt caching"): every current model, 1,024+ in 128 steps
  // (named families only, so the tests' 'gpt-test' keeps the permissive default).
  ['gpt-4o', 1_024, 128],
  ['gpt-4.1', 1_024, 128],
  ['gpt-5', 1_024, 128],
  ['o1', 1_024, 128],
  ['o3', 1_024, 128],
  ['o4', 1_024, 128],
];

/** The permissive rule for names not in the table. */
const DEFAULT_RULE: CacheRule = { minTokens: 0, increment: 1, strict: false };

/** How long an unused cache entry lives (both providers' default, 5 minutes). */
export const CACHE_TTL_MS = 5 * 60_000;

/** Default share of batch requests that find an existing cache entry (best-effort). */
export const DEFAULT_BATCH_CACHE_HIT_RATE = 0.3;

export function cacheRule(model: unknown): CacheRule {
  const name = String(model ?? '');
  const found = RULES.find(([prefix]) => name.startsWith(prefix));
  return found ? { minTokens: found[1], increment: found[2], strict: true } : DEFAULT_RULE;
}

/** The tokens of a prefix the provider would cache (0 below the minimum), rounded down to the increment. */
export function cacheableTokens(rule: CacheRule, prefixTokens: number): number {
  if (prefixTokens < rule.minTokens) return 0;
  return Math.floor(prefixTokens / rule.increment) * rule.increment;
}
