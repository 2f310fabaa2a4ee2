import type { Embedder } from '@memfade/core';
import type OpenAI from 'openai';
import { classifyModelError } from './errors.js';

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
  /** Made at the first call: the SDK is imported then, not at start (openaiSdk). */
  private client?: Promise<OpenAI>;

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
        this.client ??= import('openai').then(
          ({ default: OpenAI }) =>
            new OpenAI({
              apiKey: this.options.apiKey,
              baseURL: this.options.baseURL,
              timeout: this.options.timeoutMs,
              maxRetries: 2,
            }),
        );
        const response = await (await this.client).embeddings.create({
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
