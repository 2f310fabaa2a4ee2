import type { BatchCompressor, BatchEraser, Compressor, Embedder } from '@memfade/core';
import { ConfigError } from '@memfade/runtime';
import { HashingEmbedder } from './hashing-embedder.js';
import { OfflineCompressor } from './offline/compressor.js';
import { AnthropicBatchClient } from './providers/anthropic-batch-client.js';
import { AnthropicClient } from './providers/anthropic-client.js';
import type { BatchClient } from './providers/batch-client.js';
import { ModelBatchCompressor } from './providers/batch-compressor.js';
import type { ModelClient } from './providers/model-client.js';
import { ModelCompressor } from './providers/model-compressor.js';
import { OpenAIBatchClient } from './providers/openai-batch-client.js';
import { OpenAIClient } from './providers/openai-client.js';
import { OpenAIEmbedder } from './providers/openai-embedder.js';
import { QaModel } from './providers/qa-model.js';

export interface ModelSettings {
  model?: string;
  apiKey?: string;
  baseURL?: string;
  timeoutMs: number;
  /** The ceiling of max_tokens per call (MODEL_MAX_TOKENS); each call asks for its stage's budget below it. */
  maxTokens: number;
  /** The time zone a memory's date is given in, in the prompt (SCHEDULE_TZ); default UTC. */
  timeZone?: string;
}

export type CompressorConfig =
  | { provider: 'offline'; timeZone?: string }
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
  if (config.provider === 'offline')
    return new OfflineCompressor(config.timeZone ? { timeZone: config.timeZone } : {});
  return new ModelCompressor(config.provider, createModelClient(config), promptOptions(config));
}

const promptOptions = (config: ModelSettings) => (config.timeZone ? { timeZone: config.timeZone } : {});

/**
 * The QA model `memfade eval` answers and judges with: the configured provider and model, or
 * undefined with the offline provider (there is no model to ask).
 */
export function createQaModel(config: CompressorConfig): QaModel | undefined {
  return config.provider === 'offline' ? undefined : new QaModel(createModelClient(config));
}

/**
 * The batch API of the configured provider, sending the same request bodies as its sync client;
 * undefined for the offline provider. Whether an OpenAI-compatible server has `/v1/batches` is
 * for the caller's configuration to say (README "Model providers").
 */
export function createBatchClient(config: CompressorConfig): BatchClient | undefined {
  switch (config.provider) {
    case 'offline':
      return undefined;
    case 'anthropic':
      return new AnthropicBatchClient({
        ...config,
        apiKey: required(config.apiKey, 'ANTHROPIC_API_KEY', 'anthropic'),
        model: required(config.model, 'MEMFADE_MODEL', 'anthropic'),
      });
    case 'openai':
      return new OpenAIBatchClient({
        ...config,
        apiKey: required(config.apiKey, 'OPENAI_API_KEY', 'openai'),
        model: required(config.model, 'MEMFADE_MODEL', 'openai'),
      });
  }
}

/**
 * Batch mode's model for the configured provider (its batch API, and its sync client for the one
 * repair call a reply may need); undefined for the offline provider, which is always sync.
 */
export function createBatchCompressor(config: CompressorConfig): BatchCompressor | undefined {
  if (config.provider === 'offline') return undefined;
  const client = createBatchClient(config);
  if (!client) return undefined;
  const sync = new ModelCompressor(config.provider, createModelClient(config), promptOptions(config));
  return new ModelBatchCompressor(client, sync);
}

/**
 * The batch API's look, cancel and delete, for erasure (docs/design.md invariant 8): the batch client
 * alone, no sync model client; undefined for the offline provider, which has no batches.
 */
export function createBatchEraser(config: CompressorConfig): BatchEraser | undefined {
  const client = createBatchClient(config);
  if (!client) return undefined;
  return {
    status: async (batchId) => {
      const status = await client.status(batchId);
      return { ended: status.state === 'ended', ...(status.failure && { failure: status.failure }) };
    },
    cancel: (batchId) => client.cancel(batchId),
    deleteBatch: (batchId) => client.delete(batchId),
    deleteOrphanFiles: (runIds) => client.deleteOrphanFiles(runIds),
  };
}

function createModelClient(config: Exclude<CompressorConfig, { provider: 'offline' }>): ModelClient {
  switch (config.provider) {
    case 'anthropic':
      return new AnthropicClient({
        ...config,
        apiKey: required(config.apiKey, 'ANTHROPIC_API_KEY', 'anthropic'),
        model: required(config.model, 'MEMFADE_MODEL', 'anthropic'),
      });
    case 'openai':
      return new OpenAIClient({
        ...config,
        apiKey: required(config.apiKey, 'OPENAI_API_KEY', 'openai'),
        model: required(config.model, 'MEMFADE_MODEL', 'openai'),
      });
  }
}

/**
 * The embedding model's name and dimensions, which a vector store is opened with, without the
 * embedder: no key needed (`memfade forget` deletes records and embeds none).
 */
export function embeddingIdentity(config: EmbedderConfig): { model: string; dimensions: number } {
  if (config.embedder === 'hashing') return new HashingEmbedder(config.dimensions);
  return {
    model: required(config.model, 'EMBEDDING_MODEL', 'openai embeddings'),
    dimensions: config.dimensions,
  };
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
