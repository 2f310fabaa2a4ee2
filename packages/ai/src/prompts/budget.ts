import type { Language, TargetStage } from '@memfade/core';

/**
 * The output budget of one call (`max_tokens`, docs/design.md §6): enough for the whole reply at the
 * top of its target, so a reply the gate would accept is never cut off, and no more (Anthropic
 * reserves output-token rate limit by max_tokens). A reply that still hits it is retried once with
 * twice the budget (model-compressor.ts), up to the configured ceiling.
 *
 * Tokens per character, measured with the providers' public tokenizers on the demo conversations
 * (docs/prompts.md "Output budget"): Chinese 0.81 (o200k, GPT-4o and later), 1.14 (Anthropic's
 * published Claude tokenizer), 1.20 (cl100k); English 0.21-0.23. Taken with headroom: 1.5 per 字,
 * 0.3 per English character.
 */
export const TOKENS_PER_CHAR: Record<Language, number> = { zh: 1.5, en: 0.3 };

/**
 * The main text's share of the whole reply: V1 adds key points, emotional highlights and the
 * personality's emphasis; V2 adds its points, traces, forgotten details, residue and notes.
 */
const MAIN_SHARE: Record<TargetStage, number> = { v1: 0.6, v2: 0.35 };

/** Keys, quotes and punctuation of the JSON, and a floor for short memories whose lists dominate. */
const JSON_OVERHEAD = 150;
export const MIN_OUTPUT_TOKENS = 1_024;

/** V1 and its V2 draft in one reply: both stages' budgets (docs/design.md §4). */
export function pairBudget(language: Language, v1Max: number, draftMax: number): number {
  return outputBudget('v1', language, v1Max) + outputBudget('v2', language, draftMax);
}

export function outputBudget(stage: TargetStage, language: Language, targetMax: number): number {
  const tokens = Math.ceil((targetMax * TOKENS_PER_CHAR[language]) / MAIN_SHARE[stage]) + JSON_OVERHEAD;
  return Math.max(MIN_OUTPUT_TOKENS, tokens);
}

/** English targets are given in words (models follow them better); the gate still measures characters. */
export const CHARS_PER_WORD = 5.5;

export function words(chars: number): number {
  return Math.max(1, Math.round(chars / CHARS_PER_WORD));
}

/**
 * What a call's input is reserved at on the night's budget (docs/design.md invariant 14), from the
 * text it sends: above every tokenizer measured (the numbers above: at most 1.2 tokens per Chinese
 * character, 0.23 per English one, more in the JSON schema's punctuation).
 */
const INPUT_TOKENS_PER_CHAR = { cjk: 1.5, other: 0.35 };
/** The framing of each text sent (a system block, a message, the tool or response format). */
const FRAMING_TOKENS = 50;
/**
 * What a provider adds to every call beyond the texts sent: Anthropic's tool-use system prompt
 * (313 tokens for a forced tool, 346 with auto, on the Claude 4 models), billed as input.
 */
export const PROVIDER_PROMPT_TOKENS = 346;

export function inputCeiling(...texts: string[]): number {
  let cjk = 0;
  let other = 0;
  for (const text of texts)
    for (const ch of text) {
      if (ch.codePointAt(0)! >= 0x2e80) cjk++;
      else other++;
    }
  return Math.ceil(
    PROVIDER_PROMPT_TOKENS +
      FRAMING_TOKENS * texts.length +
      cjk * INPUT_TOKENS_PER_CHAR.cjk +
      other * INPUT_TOKENS_PER_CHAR.other,
  );
}

/**
 * What a repair turn tells the model, at most, in tokens: the schema's first 5 issues, a length,
 * and up to 20 facts the reply missed (retentionFeedback), each a few words of the memory.
 */
export const REPAIR_FEEDBACK_TOKENS = 600;

/** A reply sent back in a repair turn, as input tokens per token it was billed as output (its JSON escaped). */
export const REPLY_AS_INPUT = 1.25;
