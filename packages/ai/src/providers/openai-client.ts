import OpenAI from 'openai';
import { classifyModelError } from './errors.js';
import {
  conversation,
  type ModelClient,
  type ModelPrompt,
  type ModelTurn,
  type RepairTurn,
} from './model-client.js';

export interface OpenAIOptions {
  apiKey: string;
  model: string;
  /** Any OpenAI-compatible endpoint: DeepSeek, Qwen (DashScope), vLLM, Ollama... */
  baseURL?: string;
  timeoutMs: number;
  maxTokens: number;
  /** `json_object` for servers without strict json_schema support; the schema then goes in the prompt. */
  responseFormat: 'json_schema' | 'json_object';
}

/**
 * The Chat Completions request for one prompt: a strict json_schema response format built from the
 * zod schema (or json_object with the schema in the system prompt), the stable prefix first so the
 * provider's automatic prefix caching applies. The one place this body is built: the sync call
 * sends it and a Batch API input line carries it as its `body`.
 */
export function openaiParams(
  options: Pick<OpenAIOptions, 'model' | 'maxTokens' | 'responseFormat'>,
  prompt: ModelPrompt,
  schema: Record<string, unknown>,
  repair?: RepairTurn,
): OpenAI.ChatCompletionCreateParamsNonStreaming {
  const strict = options.responseFormat === 'json_schema';
  const system = strict
    ? `${prompt.instructions}\n\n${prompt.personality}`
    : `${prompt.instructions}\n\n${prompt.personality}\n\nReply with one JSON object matching this JSON schema:\n${JSON.stringify(schema)}`;
  return {
    model: options.model,
    max_tokens: options.maxTokens,
    temperature: 0.3,
    messages: [{ role: 'system', content: system }, ...conversation(prompt, repair)],
    response_format: strict
      ? { type: 'json_schema', json_schema: { name: prompt.toolName, strict: true, schema } }
      : { type: 'json_object' },
  };
}

/** A chat completion as a turn: the reply parsed as JSON (undefined when it is not), and the usage. */
export function openaiTurn(response: OpenAI.ChatCompletion): ModelTurn {
  const text = response.choices[0]?.message.content ?? '';
  const cached = response.usage?.prompt_tokens_details?.cached_tokens ?? 0;
  const usage = {
    inputTokens: (response.usage?.prompt_tokens ?? 0) - cached,
    outputTokens: response.usage?.completion_tokens ?? 0,
    cacheReadTokens: cached,
    cacheWriteTokens: 0,
  };
  return { json: parseJson(text), text, usage };
}

/**
 * The SDK client every OpenAI(-compatible) model call of memfade goes through. maxRetries 0: the
 * queue owns retries (compress jobs, the batch poller), so SDK and BullMQ retries never multiply.
 */
export function openaiSdk(options: { apiKey: string; baseURL?: string; timeoutMs: number }): OpenAI {
  return new OpenAI({
    apiKey: options.apiKey,
    baseURL: options.baseURL,
    timeout: options.timeoutMs,
    maxRetries: 0,
  });
}

/** One synchronous Chat Completions call per prompt. */
export class OpenAIClient implements ModelClient {
  readonly model: string;
  private readonly client: OpenAI;

  constructor(private readonly options: OpenAIOptions) {
    this.model = options.model;
    this.client = openaiSdk(options);
  }

  async complete(
    prompt: ModelPrompt,
    schema: Record<string, unknown>,
    repair?: RepairTurn,
    signal?: AbortSignal,
  ): Promise<ModelTurn> {
    let response: OpenAI.ChatCompletion;
    try {
      response = await this.client.chat.completions.create(
        openaiParams(this.options, prompt, schema, repair),
        signal && { signal },
      );
    } catch (error) {
      throw classifyModelError(error, 'openai');
    }
    return openaiTurn(response);
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
