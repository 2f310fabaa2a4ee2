import type { Usage } from '@memfade/core';
import type { StagePrompt } from '../prompts/build-prompt.js';

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
  complete(prompt: StagePrompt, schema: Record<string, unknown>, repair?: RepairTurn): Promise<ModelTurn>;
}
