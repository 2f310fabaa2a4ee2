import Anthropic from '@anthropic-ai/sdk';
import { classifyModelError } from './errors.js';
import {
  conversation,
  type ModelClient,
  type ModelPrompt,
  type ModelTurn,
  type RepairTurn,
} from './model-client.js';

export interface AnthropicOptions {
  apiKey: string;
  model: string;
  baseURL?: string;
  timeoutMs: number;
  maxTokens: number;
}

/**
 * Anthropic Messages API: the V1/V2 schema as a forced tool, and cache_control on the stable
 * prefix (instructions + personality), so every memory of one role card reuses the cached part.
 */
export class AnthropicClient implements ModelClient {
  readonly model: string;
  private readonly client: Anthropic;

  constructor(private readonly options: AnthropicOptions) {
    this.model = options.model;
    // maxRetries 0: the queue owns retries, so SDK and BullMQ retries never multiply.
    this.client = new Anthropic({
      apiKey: options.apiKey,
      baseURL: options.baseURL,
      timeout: options.timeoutMs,
      maxRetries: 0,
    });
  }

  async complete(
    prompt: ModelPrompt,
    schema: Record<string, unknown>,
    repair?: RepairTurn,
    signal?: AbortSignal,
  ): Promise<ModelTurn> {
    const messages: Anthropic.MessageParam[] = conversation(prompt, repair);
    let response: Anthropic.Message;
    try {
      response = await this.client.messages.create(
        {
          model: this.model,
          max_tokens: this.options.maxTokens,
          temperature: 0.3,
          system: [
            { type: 'text', text: prompt.instructions },
            { type: 'text', text: prompt.personality, cache_control: { type: 'ephemeral' } },
          ],
          tools: [{ name: prompt.toolName, input_schema: schema as Anthropic.Tool.InputSchema }],
          tool_choice: { type: 'tool', name: prompt.toolName },
          messages,
        },
        signal && { signal },
      );
    } catch (error) {
      throw classifyModelError(error, 'anthropic');
    }
    const tool = response.content.find(
      (block) => block.type === 'tool_use' && block.name === prompt.toolName,
    );
    const text = response.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
    const usage = {
      inputTokens: response.usage.input_tokens,
      outputTokens: response.usage.output_tokens,
      cacheReadTokens: response.usage.cache_read_input_tokens ?? 0,
      cacheWriteTokens: response.usage.cache_creation_input_tokens ?? 0,
    };
    if (tool?.type !== 'tool_use') return { json: undefined, text, usage };
    return { json: tool.input, text: JSON.stringify(tool.input), usage };
  }
}
