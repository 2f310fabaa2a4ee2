export { HashingEmbedder } from './hashing-embedder.js';
export { OfflineCompressor } from './offline/compressor.js';
export { emotionsIn } from './offline/lexicon.js';
export { conversationSentences, splitSentences } from './offline/segment.js';
export { outputBudget, PROVIDER_PROMPT_TOKENS, TOKENS_PER_CHAR } from './prompts/budget.js';
export {
  buildPrompt,
  escapeDataBlock,
  type PromptOptions,
  repairMessage,
  type StagePrompt,
} from './prompts/build-prompt.js';
export { PROMPT_VERSIONS, TOOL_NAMES } from './prompts/instructions.js';
export {
  type CompressorConfig,
  createBatchClient,
  createBatchCompressor,
  createBatchEraser,
  createCompressor,
  createEmbedder,
  createQaModel,
  type EmbedderConfig,
  embeddingIdentity,
  type ModelSettings,
} from './provider.js';
export { AnthropicBatchClient } from './providers/anthropic-batch-client.js';
export { anthropicParams, anthropicTurn } from './providers/anthropic-client.js';
export {
  type BatchClient,
  type BatchCounts,
  type BatchLabel,
  type BatchLimits,
  type BatchRequest,
  type BatchResult,
  type BatchState,
  type BatchStatus,
  batchCustomId,
  batchRunTag,
  CUSTOM_ID,
  type FailedResult,
  type ListedBatch,
  parseBatchCustomId,
  type SubmittedBatch,
  type SucceededResult,
  splitIntoBatches,
} from './providers/batch-client.js';
export { ModelBatchCompressor } from './providers/batch-compressor.js';
export { classifyModelError, retryAfterMs } from './providers/errors.js';
export type { ModelPrompt, ModelTurn, RepairTurn, ReplyEnd } from './providers/model-client.js';
export { type Answered, type Checked, checkTurn, ModelCompressor } from './providers/model-compressor.js';
export { OpenAIBatchClient } from './providers/openai-batch-client.js';
export { openaiParams, openaiTurn } from './providers/openai-client.js';
export {
  QA_PROMPT_VERSION,
  QA_TOOL_NAMES,
  type QaAnswer,
  type QaJudgement,
  QaModel,
} from './providers/qa-model.js';
export { JSON_SCHEMAS, STAGE_SCHEMAS } from './schemas.js';
