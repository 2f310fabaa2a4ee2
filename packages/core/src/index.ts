export {
  type BatchApplyOutcome,
  type BatchExpectation,
  type BatchPreparation,
  type BatchStageDeps,
  checkBatchReply,
  type PendingStage,
  prepareBatchStage,
  writeBatchStages,
} from './batch-stage.js';
export {
  bothScripts,
  type ChineseScript,
  chineseScript,
  markersIn,
  toSimplified,
  toTraditional,
} from './chinese-script.js';
export {
  BadInputError,
  BudgetReachedError,
  errorMessage,
  failureReason,
  InvalidModelOutputError,
  JobTimeoutError,
  type ModelFailureReason,
  PermanentModelError,
  productNamed,
  RateLimitedError,
} from './errors.js';
export {
  contentOf,
  describeMissing,
  extractFacts,
  type Fact,
  type FactKind,
  holds,
  holdsFact,
  normalise,
  type Retention,
  retention,
  retentionOf,
} from './facts.js';
export {
  FAITHFULNESS_REASON,
  FaithfulnessGateError,
  faithfulnessSource,
  inventedSpans,
} from './faithfulness.js';
export type { FaithfulnessSource, SourceTurn } from './faithfulness-match.js';
export {
  formatMemoryForPrompt,
  formatPersonality,
  formatV1ForV2,
  searchableText,
  sourceHash,
  vectorHash,
} from './format.js';
export { checkOutput, describeFinding, isFatal, type OutputFinding, v1Target } from './gates.js';
export {
  addUsage,
  type HistoryEntry,
  type Language,
  type LastError,
  type Memory,
  type RoleCard,
  STAGES,
  type Stage,
  type TargetStage,
  TRIGGERS,
  type Trigger,
  type Turn,
  type Usage,
  type V1Fields,
  type V1Result,
  type V2Draft,
  type V2Fields,
  type V2Result,
  ZERO_USAGE,
} from './memory.js';
export { memoryLanguage } from './memory-language.js';
export { FUTURE_DATE_TOLERANCE_MS, parseMemory, parseRoleCard, rawText } from './parse.js';
export {
  type AppliedTransition,
  compressMemory,
  type JobProgress,
  type PipelineOutcome,
  progressOf,
} from './pipeline.js';
export type {
  BatchCompressor,
  BatchDeletion,
  BatchEraser,
  BatchGroup,
  BatchItem,
  BatchItemResult,
  BatchLine,
  BatchMemoryStore,
  CallCeiling,
  CallMeter,
  CompressionRequest,
  Compressor,
  DeletedPurge,
  Embedder,
  Exclusive,
  GroupMember,
  ListIdsOptions,
  MemoryStore,
  ModelReply,
  StageTransition,
  StaleStagesDiscard,
  VectorRecord,
  VectorStore,
} from './ports.js';
export { isGroup } from './ports.js';
export { costOf, type ModelPrice, type PriceTable, priceTableSchema } from './pricing.js';
export {
  RETENTION_MIN_FACTS,
  RETENTION_REASON,
  RetentionGateError,
  retentionFeedback,
  retentionGate,
  retentionMin,
  retentionShortfall,
} from './retention-gate.js';
export { roleOf, usableName } from './roles.js';
export { type Rng, rng } from './seeded.js';
export { V2_SHARE_OF_V1, v2Target } from './stage.js';
export {
  dueCutoff,
  type StagePolicy,
  stageDueAt,
  stageIndex,
  stagePolicy,
  transitionsDue,
  v2LengthTarget,
} from './stage-policy.js';
export {
  detectLanguage,
  escapeRegExp,
  estimateTokens,
  hanShare,
  inBothLanguages,
  insideQuote,
  measureLength,
  pairQuotes,
  visibleText,
} from './text.js';
export { readTime } from './times.js';
export { refuseUnsupportedLanguage, unsupportedLanguage } from './written-in.js';
