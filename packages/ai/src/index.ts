export { HashingEmbedder } from './hashing-embedder.js';
export { emotionsIn } from './lexicon.js';
export { OfflineCompressor } from './offline-compressor.js';
export { buildPrompt, escapeDataBlock, type StagePrompt } from './prompts/build-prompt.js';
export { PROMPT_VERSIONS, TOOL_NAMES } from './prompts/instructions.js';
export {
  type CompressorConfig,
  createCompressor,
  createEmbedder,
  createQaModel,
  type EmbedderConfig,
  type ModelSettings,
} from './provider.js';
export { classifyModelError, retryAfterMs } from './providers/errors.js';
export {
  QA_PROMPT_VERSION,
  QA_TOOL_NAMES,
  type QaAnswer,
  type QaJudgement,
  QaModel,
} from './providers/qa-model.js';
export { JSON_SCHEMAS, STAGE_SCHEMAS } from './schemas.js';
export { conversationSentences, splitSentences } from './segment.js';
