import type { Embedder } from '@memfade/core';
import { classifyModelError } from './errors.js';
import { lazily } from './model-client.js';

export interface OpenAIEmbedderOptions {
  apiKey: string;
  model: string;
  baseURL?: string;
  dimensions: number;
  timeoutMs: number;
  /** Texts per request: the vector sync's batches are split to stay under provider limits. */
  batchSize?: number;
}

/** Embeddings from any OpenAI-compatible endpoint, batched. */
export class OpenAIEmbedder implements Embedder {
  readonly model: string;
  readonly dimensions: number;
  private readonly sdk = lazily(async () => {
    const { default: OpenAI } = await import('openai');
    return new OpenAI({
      apiKey: this.options.apiKey,
      baseURL: this.options.baseURL,
      timeout: this.options.timeoutMs,
      maxRetries: 2,
    });
  });

  constructor(private readonly options: OpenAIEmbedderOptions) {
    this.model = options.model;
    this.dimensions = options.dimensions;
  }

  async embed(texts: string[]): Promise<number[][]> {
    const size = this.options.batchSize ?? 128;
    const out: number[][] = [];
    for (let i = 0; i < texts.length; i += size) {
      const batch = texts.slice(i, i + size);
      try {
        const response = await (await this.sdk()).embeddings.create({
          model: this.model,
          input: batch,
          dimensions: this.dimensions,
        });
        const ordered = [...response.data].sort((a, b) => a.index - b.index);
        out.push(...ordered.map((d) => d.embedding));
      } catch (error) {
        throw classifyModelError(error, 'embeddings');
      }
    }
    return out;
  }
}
