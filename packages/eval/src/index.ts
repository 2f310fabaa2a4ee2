export {
  type EvalConversation,
  type EvalFact,
  type EvalFormat,
  type EvalQuestion,
  FORMATS,
  holdsFact,
  normalise,
} from './dataset.js';
export {
  type ConversationResult,
  type Distribution,
  type EvalOptions,
  type EvalReport,
  evaluate,
  type LanguageSummary,
  type QaSummary,
  type QuestionOutcome,
  type StageOutcome,
  type StageSummary,
  type TargetStatus,
} from './evaluate.js';
export {
  DatasetError,
  loadDataset,
  parseJsonl,
  parseKdconv,
  parseLocomo,
  parseMemorybank,
} from './loaders.js';
export { InMemoryMemoryStore } from './memory-store.js';
export { renderMarkdown, renderRetentionSvg } from './report.js';
export { sample, select } from './sample.js';
