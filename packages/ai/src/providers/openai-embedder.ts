import type { Embedder } from '@memfade/core';
import OpenAI from 'openai';
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
  private readonly client: OpenAI;

  constructor(private readonly options: OpenAIEmbedderOptions) {
    this.model = options.model;
    this.dimensions = options.dimensions;
    this.client = new OpenAI({
      apiKey: options.apiKey,
      baseURL: options.baseURL,
      timeout: options.timeoutMs,
      maxRetries: 2,
    });
  }

  async embed(texts: string[]): Promise<number[][]> {
    const size = this.options.batchSize ?? 128;
    const out: number[][] = [];
    for (let i = 0; i < texts.length; i += size) {
      const batch = texts.slice(i, i + size);
      try {
        const response = await this.client.embeddings.create({
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
