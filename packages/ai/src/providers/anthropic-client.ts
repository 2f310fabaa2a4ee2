import type Anthropic from '@anthropic-ai/sdk';
import { classifyModelError } from './errors.js';
import {
  conversation,
  lazily,
  type ModelClient,
  type ModelPrompt,
  type ModelTurn,
  maxTokensFor,
  type RepairTurn,
  type ReplyEnd,
} from './model-client.js';

export interface AnthropicOptions {
  apiKey: string;
  model: string;
  baseURL?: string;
  timeoutMs: number;
  /** The ceiling of max_tokens (MODEL_MAX_TOKENS); a prompt asks for its own budget below it. */
  maxTokens: number;
}

/**
 * The Messages request for one prompt: the V1/V2 schema as a forced strict tool (the reply's input
 * is decoded to the schema), max_tokens from the prompt's budget, and cache_control on the stable
 * prefix (instructions + personality), so every memory of one role card reuses the cached part.
 * The one place this body is built: the sync call sends it as it is and a Message Batches request
 * carries it as its `params`, so both hit the same cache prefix.
 */
export function anthropicParams(
  options: Pick<AnthropicOptions, 'model' | 'maxTokens'>,
  prompt: ModelPrompt,
  schema: Record<string, unknown>,
  repair?: RepairTurn,
): Anthropic.MessageCreateParamsNonStreaming {
  return {
    model: options.model,
    max_tokens: maxTokensFor(prompt, options.maxTokens),
    temperature: 0.3,
    system: [
      { type: 'text', text: prompt.instructions },
      { type: 'text', text: prompt.personality, cache_control: { type: 'ephemeral' } },
    ],
    tools: [{ name: prompt.toolName, input_schema: schema as Anthropic.Tool.InputSchema, strict: true }],
    tool_choice: { type: 'tool', name: prompt.toolName },
    messages: conversation(prompt, repair),
  };
}

/**
 * How a Message ended: `max_tokens` (and `model_context_window_exceeded`, which newer models send
 * when the context fills first) cut the tool input off, whatever part of it came back; `refusal`
 * is the model declining. Anything else with a tool call is complete.
 */
function endOf(stopReason: string | null): ReplyEnd {
  if (stopReason === 'max_tokens' || stopReason === 'model_context_window_exceeded') return 'truncated';
  if (stopReason === 'refusal') return 'refused';
  return 'complete';
}

/**
 * A Message as a turn: how it ended, the forced tool's input as the JSON (only when complete: a
 * truncated tool input is partial), and the usage, which is paid whatever the ending. `toolName`
 * picks the tool block; a batch result does not carry its prompt, so there the request's one tool
 * (the only one offered) is taken. Sync replies and batch result lines go through here alike.
 */
export function anthropicTurn(message: Anthropic.Message, toolName?: string): ModelTurn {
  const tool = message.content.find(
    (block) => block.type === 'tool_use' && (toolName === undefined || block.name === toolName),
  );
  const text = message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
  // Anthropic always reports usage; a compatible server may not: counted at the ceiling then.
  const reported = message.usage as Anthropic.Usage | undefined;
  const usage = {
    inputTokens: reported?.input_tokens ?? 0,
    outputTokens: reported?.output_tokens ?? 0,
    cacheReadTokens: reported?.cache_read_input_tokens ?? 0,
    cacheWriteTokens: reported?.cache_creation_input_tokens ?? 0,
  };
  const missing = reported ? {} : { usageMissing: true as const };
  const stopReason = String(message.stop_reason ?? 'none');
  const end = endOf(message.stop_reason);
  if (end !== 'complete' || tool?.type !== 'tool_use')
    return { end, stopReason, json: undefined, text, usage, ...missing };
  return { end, stopReason, json: tool.input, text: JSON.stringify(tool.input), usage, ...missing };
}

/**
 * The SDK client every Anthropic call of memfade goes through. maxRetries 0: the queue owns
 * retries (compress jobs, the batch poller), so SDK and BullMQ retries never multiply. Imported at
 * the first call, not at start: a process that never calls the model (a CLI command, an offline
 * worker) does not load the SDK's modules.
 */
export async function anthropicSdk(options: AnthropicOptions): Promise<Anthropic> {
  const { default: Anthropic } = await import('@anthropic-ai/sdk');
  return new Anthropic({
    apiKey: options.apiKey,
    baseURL: options.baseURL,
    timeout: options.timeoutMs,
    maxRetries: 0,
  });
}

/** One synchronous Messages call per prompt. */
export class AnthropicClient implements ModelClient {
  readonly model: string;
  readonly maxTokens: number;
  private readonly sdk = lazily(() => anthropicSdk(this.options));

  constructor(private readonly options: AnthropicOptions) {
    this.model = options.model;
    this.maxTokens = options.maxTokens;
  }

  async complete(
    prompt: ModelPrompt,
    schema: Record<string, unknown>,
    repair?: RepairTurn,
    signal?: AbortSignal,
  ): Promise<ModelTurn> {
    let response: Anthropic.Message;
    try {
      response = await (await this.sdk()).messages.create(
        anthropicParams(this.options, prompt, schema, repair),
        signal && { signal },
      );
    } catch (error) {
      throw classifyModelError(error, 'anthropic');
    }
    return anthropicTurn(response, prompt.toolName);
  }
}
