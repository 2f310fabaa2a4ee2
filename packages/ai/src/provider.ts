import { type Compressor, ConfigError, type Embedder } from '@memfade/core';
import { HashingEmbedder } from './hashing-embedder.js';
import { OfflineCompressor } from './offline-compressor.js';
import { AnthropicClient } from './providers/anthropic-client.js';
import { ModelCompressor } from './providers/model-compressor.js';
import { OpenAIClient } from './providers/openai-client.js';
import { OpenAIEmbedder } from './providers/openai-embedder.js';

export interface ModelSettings {
  model?: string;
  apiKey?: string;
  baseURL?: string;
  timeoutMs: number;
  maxTokens: number;
}

export type CompressorConfig =
  | { provider: 'offline' }
  | ({ provider: 'anthropic' } & ModelSettings)
  | ({ provider: 'openai'; responseFormat: 'json_schema' | 'json_object' } & ModelSettings);

export type EmbedderConfig =
  | { embedder: 'hashing'; dimensions?: number }
  | {
      embedder: 'openai';
      model?: string;
      apiKey?: string;
      baseURL?: string;
      dimensions: number;
      timeoutMs: number;
      batchSize?: number;
    };

/** A provider chosen without its key or model fails at start-up, naming the variable to set. */
function required(value: string | undefined, variable: string, provider: string): string {
  if (!value) throw new ConfigError(`${variable} is required when the provider is ${provider}`);
  return value;
}

export function createCompressor(config: CompressorConfig): Compressor {
  switch (config.provider) {
    case 'offline':
      return new OfflineCompressor();
    case 'anthropic':
      return new ModelCompressor(
        'anthropic',
        new AnthropicClient({
          ...config,
          apiKey: required(config.apiKey, 'ANTHROPIC_API_KEY', 'anthropic'),
          model: required(config.model, 'MEMFADE_MODEL', 'anthropic'),
        }),
      );
    case 'openai':
      return new ModelCompressor(
        'openai',
        new OpenAIClient({
          ...config,
          apiKey: required(config.apiKey, 'OPENAI_API_KEY', 'openai'),
          model: required(config.model, 'MEMFADE_MODEL', 'openai'),
        }),
      );
  }
}

export function createEmbedder(config: EmbedderConfig): Embedder {
  switch (config.embedder) {
    case 'hashing':
      return new HashingEmbedder(config.dimensions);
    case 'openai':
      return new OpenAIEmbedder({
        ...config,
        apiKey: required(config.apiKey, 'EMBEDDING_API_KEY (or OPENAI_API_KEY)', 'openai embeddings'),
        model: required(config.model, 'EMBEDDING_MODEL', 'openai embeddings'),
      });
  }
}
