import type { Usage } from '@memfade/core';
import type { StagePrompt } from '../prompts/build-prompt.js';

/** What a client sends: the stable prefix (instructions, then the cacheable part), a user turn, a tool. */
export type ModelPrompt = Pick<StagePrompt, 'instructions' | 'personality' | 'user' | 'toolName'>;

/** What one call to a model returned: its JSON (undefined when it gave none) and the tokens it cost. */
export interface ModelTurn {
  json: unknown;
  /** The reply as text, to show the model its own answer in a repair turn. */
  text: string;
  usage: Usage;
}

export interface RepairTurn {
  previous: string;
  feedback: string;
}

/** One provider's wire format: a prompt and a JSON schema in, a turn out. Retries are the queue's job. */
export interface ModelClient {
  readonly model: string;
  /** `signal` cancels the HTTP call when the job's time is up (JOB_TIMEOUT_MS). */
  complete(
    prompt: ModelPrompt,
    schema: Record<string, unknown>,
    repair?: RepairTurn,
    signal?: AbortSignal,
  ): Promise<ModelTurn>;
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
