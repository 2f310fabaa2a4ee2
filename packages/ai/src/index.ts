export { HashingEmbedder } from './hashing-embedder.js';
export { emotionsIn } from './lexicon.js';
export { OfflineCompressor } from './offline-compressor.js';
export { type CompressorConfig, createCompressor, createEmbedder, type EmbedderConfig } from './provider.js';
export { conversationSentences, splitSentences } from './segment.js';
