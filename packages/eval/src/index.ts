export {
  type EvalConversation,
  type EvalFact,
  type EvalFormat,
  type EvalQuestion,
  FORMATS,
  holdsFact,
  normalise,
  userRoleOf,
} from './dataset.js';
export { type EvalOptions, type EvalReport, evaluate } from './evaluate.js';
export { type Chat, drawChat, type Shape as ChatShape } from './fuzz/chats.js';
export {
  DatasetError,
  loadDataset,
  locomoDate,
  parseDulemon,
  parseJsonl,
  parseKdconv,
  parseLocomo,
  parseMemorybank,
  unsegment,
} from './loaders.js';
export {
  type Finding,
  MEASURES,
  type MeasureName,
  type MemoryView,
  measureMemory,
} from './measures/index.js';
export { InMemoryMemoryStore } from './memory-store.js';
export { type QaSummary, type QuestionOutcome, summariseQa } from './qa.js';
export { MEASURE_TARGET, MEASURE_TEXT, renderMarkdown, renderRetentionSvg } from './report.js';
export type { ConversationResult, StageOutcome, TargetStatus } from './result.js';
export { sample, select } from './sample.js';
export { fnv1a, HALVES, type Half, halfOf, inHalf } from './split.js';
export {
  type Distribution,
  type LanguageSummary,
  type MeasureSummary,
  type Sample,
  type StageSummary,
  summarise,
} from './summary.js';
