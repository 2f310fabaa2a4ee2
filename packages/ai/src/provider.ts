import type { Compressor, Embedder } from '@memfade/core';
import { HashingEmbedder } from './hashing-embedder.js';
import { OfflineCompressor } from './offline-compressor.js';

/** Provider choice; Anthropic and OpenAI-compatible providers join this union as further kinds. */
export type CompressorConfig = { provider: 'offline' };
export type EmbedderConfig = { embedder: 'hashing'; dimensions?: number };

export function createCompressor(config: CompressorConfig): Compressor {
  switch (config.provider) {
    case 'offline':
      return new OfflineCompressor();
  }
}

export function createEmbedder(config: EmbedderConfig): Embedder {
  switch (config.embedder) {
    case 'hashing':
      return new HashingEmbedder(config.dimensions);
  }
}
