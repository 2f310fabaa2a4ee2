import type OpenAI from 'openai';
import { makeParseableResponseFormat, parseChatCompletion } from 'openai/lib/parser';
import { TOOL_NAMES } from '../prompts/instructions.js';
import { STAGE_SCHEMAS } from '../schemas.js';
import { classifyModelError } from './errors.js';
import {
  conversation,
  lazily,
  type ModelClient,
  type ModelPrompt,
  type ModelTurn,
  maxTokensFor,
  type RepairTurn,
} from './model-client.js';

export interface OpenAIOptions {
  apiKey: string;
  model: string;
  /** Any OpenAI-compatible endpoint: DeepSeek, Qwen (DashScope), vLLM, Ollama... */
  baseURL?: string;
  timeoutMs: number;
  /** The ceiling of max_tokens (MODEL_MAX_TOKENS); a prompt asks for its own budget below it. */
  maxTokens: number;
  /** `json_object` for servers without strict json_schema support; the schema then goes in the prompt. */
  responseFormat: 'json_schema' | 'json_object';
}

/** The zod schema behind each stage's format name: the reply is parsed with it, as the SDK's zod helper does. */
const ZOD_BY_NAME: Record<string, { parse(value: unknown): unknown }> = {
  [TOOL_NAMES.v1]: STAGE_SCHEMAS.v1,
  [TOOL_NAMES.v2]: STAGE_SCHEMAS.v2,
  [TOOL_NAMES.pair]: STAGE_SCHEMAS.pair,
};

/**
 * The SDK's structured-output response format (what `zodResponseFormat` returns), built from our
 * strict JSON schema: the installed SDK's `zodResponseFormat` converts zod 3 schemas only (given a
 * zod 4 object it sends `{"type":"string"}`), so the same auto-parseable format is made from the
 * schema zod 4 writes, with the zod schema as its parser. Its parser is not part of the wire body
 * (not enumerable), so a Batch API line carries exactly the same JSON.
 */
function responseFormat(name: string, schema: Record<string, unknown>) {
  const zod = ZOD_BY_NAME[name];
  return makeParseableResponseFormat(
    { type: 'json_schema', json_schema: { name, strict: true, schema } },
    (content) => (zod ? zod.parse(JSON.parse(content)) : JSON.parse(content)),
  );
}

/**
 * The Chat Completions request for one prompt: a strict json_schema response format (or json_object
 * with the schema in the system prompt), max_tokens from the prompt's budget, the stable prefix
 * first so the provider's automatic prefix caching applies. The one place this body is built: the
 * sync call sends it and a Batch API input line carries it as its `body`.
 */
export function openaiParams(
  options: Pick<OpenAIOptions, 'model' | 'maxTokens' | 'responseFormat'>,
  prompt: ModelPrompt,
  schema: Record<string, unknown>,
  repair?: RepairTurn,
): OpenAI.ChatCompletionCreateParamsNonStreaming {
  const strict = options.responseFormat === 'json_schema';
  // json_object servers (DeepSeek, Qwen) need the word JSON in the prompt, and a format to follow.
  const system = strict
    ? `${prompt.instructions}\n\n${prompt.personality}`
    : `${prompt.instructions}\n\n${prompt.personality}\n\nReply with one JSON object matching this JSON schema:\n${JSON.stringify(schema)}`;
  return {
    model: options.model,
    max_tokens: maxTokensFor(prompt, options.maxTokens),
    temperature: 0.3,
    messages: [{ role: 'system', content: system }, ...conversation(prompt, repair)],
    response_format: strict ? responseFormat(prompt.toolName, schema) : { type: 'json_object' },
  };
}

/**
 * A chat completion as a turn, checked like a careful client (docs/design.md §6): finish_reason
 * `length` is a truncated reply and `content_filter` or a `refusal` a refused one, both without
 * JSON (never stored) but with their usage, which is paid. A complete reply is parsed as the SDK's
 * `chat.completions.parse()` parses it (parseChatCompletion: the zod schema of the response format),
 * after those checks: `.parse()` itself throws on `length` and on a schema error, and the thrown
 * error carries neither the usage nor the reply a repair turn shows the model. A reply the schema
 * refuses keeps its raw JSON, so the validation (checkTurn) can say what was wrong. Sync replies
 * and Batch API output lines (no params: their body as sent is not at hand) go through here alike.
 */
export function openaiTurn(
  response: OpenAI.ChatCompletion,
  params?: OpenAI.ChatCompletionCreateParamsNonStreaming,
): ModelTurn {
  const choice = response.choices[0];
  const text = choice?.message.content ?? '';
  const cached = response.usage?.prompt_tokens_details?.cached_tokens ?? 0;
  const usage = {
    inputTokens: (response.usage?.prompt_tokens ?? 0) - cached,
    outputTokens: response.usage?.completion_tokens ?? 0,
    cacheReadTokens: cached,
    cacheWriteTokens: 0,
  };
  const turn = openaiEnd(response, text, usage, params);
  return response.usage ? turn : { ...turn, usageMissing: true };
}

function openaiEnd(
  response: OpenAI.ChatCompletion,
  text: string,
  usage: ModelTurn['usage'],
  params?: OpenAI.ChatCompletionCreateParamsNonStreaming,
): ModelTurn {
  const choice = response.choices[0];
  const finish = String(choice?.finish_reason ?? 'none');
  if (finish === 'length') return { end: 'truncated', stopReason: finish, json: undefined, text, usage };
  if (finish === 'content_filter' || choice?.message.refusal)
    return {
      end: 'refused',
      stopReason: choice?.message.refusal ? 'refusal' : finish,
      json: undefined,
      text,
      usage,
    };
  return { end: 'complete', stopReason: finish, json: parsed(response, text, params), text, usage };
}

function parsed(
  response: OpenAI.ChatCompletion,
  text: string,
  params: OpenAI.ChatCompletionCreateParamsNonStreaming | undefined,
): unknown {
  if (params?.response_format?.type === 'json_schema') {
    try {
      return parseChatCompletion(response, params).choices[0]?.message.parsed ?? undefined;
    } catch {
      // Not JSON, or JSON the schema refuses: checkTurn says which, from the raw JSON.
    }
  }
  return parseJson(text);
}

/**
 * The SDK client every OpenAI(-compatible) model call of memfade goes through. maxRetries 0: the
 * queue owns retries (compress jobs, the batch poller), so SDK and BullMQ retries never multiply.
 * Imported at the first call, as anthropicSdk is.
 */
export async function openaiSdk(options: {
  apiKey: string;
  baseURL?: string;
  timeoutMs: number;
}): Promise<OpenAI> {
  const { default: OpenAI } = await import('openai');
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
  readonly maxTokens: number;
  private readonly sdk = lazily(() => openaiSdk(this.options));

  constructor(private readonly options: OpenAIOptions) {
    this.model = options.model;
    this.maxTokens = options.maxTokens;
  }

  async complete(
    prompt: ModelPrompt,
    schema: Record<string, unknown>,
    repair?: RepairTurn,
    signal?: AbortSignal,
  ): Promise<ModelTurn> {
    const params = openaiParams(this.options, prompt, schema, repair);
    let response: OpenAI.ChatCompletion;
    try {
      response = await (await this.sdk()).chat.completions.create(params, signal && { signal });
    } catch (error) {
      throw classifyModelError(error, 'openai');
    }
    return openaiTurn(response, params);
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
