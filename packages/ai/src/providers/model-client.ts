import type { Usage } from '@memfade/core';
import type { StagePrompt } from '../prompts/build-prompt.js';

/**
 * What a client sends: the stable prefix (instructions, then the cacheable part), a user turn, a
 * tool, and the output budget (max_tokens; the client's ceiling when unset or lower).
 */
export type ModelPrompt = Pick<StagePrompt, 'instructions' | 'personality' | 'user' | 'toolName'> &
  Partial<Pick<StagePrompt, 'maxTokens'>>;

/**
 * How a reply ended (docs/design.md §6): `complete`, cut off at max_tokens (`truncated`: its JSON
 * is partial, whatever it parses to) or declined by the model (`refused`). Only a complete reply
 * carries JSON; the others are never stored.
 */
export type ReplyEnd = 'complete' | 'truncated' | 'refused';

/** What one call to a model returned: how it ended, its JSON (undefined when none) and the tokens it cost. */
export interface ModelTurn {
  end: ReplyEnd;
  /** The provider's own word for how it ended (stop_reason, finish_reason, or `refusal`), for errors. */
  stopReason: string;
  json: unknown;
  /** The reply as text, to show the model its own answer in a repair turn. */
  text: string;
  usage: Usage;
  /**
   * The reply said nothing of its usage (some OpenAI-compatible servers): `usage` is zero, and the
   * call is counted at its ceiling instead (model-compressor.ts), never as free.
   */
  usageMissing?: true;
}

export interface RepairTurn {
  previous: string;
  feedback: string;
}

/** One provider's wire format: a prompt and a JSON schema in, a turn out. Retries are the queue's job. */
export interface ModelClient {
  readonly model: string;
  /** The highest max_tokens a call may ask for (MODEL_MAX_TOKENS: the model's output limit). */
  readonly maxTokens: number;
  /** `signal` cancels the HTTP call when the job's time is up (JOB_TIMEOUT_MS). */
  complete(
    prompt: ModelPrompt,
    schema: Record<string, unknown>,
    repair?: RepairTurn,
    signal?: AbortSignal,
  ): Promise<ModelTurn>;
}

/** The max_tokens a call sends: the prompt's budget, never above the client's ceiling. */
export function maxTokensFor(prompt: ModelPrompt, ceiling: number): number {
  return Math.min(prompt.maxTokens ?? ceiling, ceiling);
}

/** The conversation after the system prompt: the memory, and on a repair the reply and what was wrong. */
export function conversation(
  prompt: ModelPrompt,
  repair?: RepairTurn,
): { role: 'user' | 'assistant'; content: string }[] {
  const turns: { role: 'user' | 'assistant'; content: string }[] = [{ role: 'user', content: prompt.user }];
  if (repair)
    turns.push({ role: 'assistant', content: repair.previous }, { role: 'user', content: repair.feedback });
  return turns;
}

/**
 * What `make` gives, made at the first call and the same promise after: a provider's SDK client,
 * whose modules are imported when a process first calls the provider, not at its start.
 */
export function lazily<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => {
    made ??= make();
    return made;
  };
}
