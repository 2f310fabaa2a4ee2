export {
  type BatchRecord,
  BatchRepository,
  type BatchRequestRecord,
  type BatchRequestState,
  type BatchState,
} from './batch-repository.js';
export {
  type CanonicalMemory,
  canonical,
  canonicalRoleCard,
  readDate,
  storedDate,
} from './canonical.js';
export { closeMongo, connectMongo } from './connection.js';
export {
  countDerived,
  type DerivedCounts,
  type ForgetTarget,
  findMemories,
  flagVectorPending,
  forgetDerived,
  targetMemoryIds,
} from './erasure.js';
export {
  COLLECTIONS,
  type CollectionNames,
  DATE_FORMATS,
  type DateFormat,
  DEFAULT_MAPPING,
  F,
  type Fields,
  type Mapping,
  type MappingConfig,
  MappingError,
  mappingSchema,
  parseMapping,
  resolveMapping,
  valueAt,
} from './mapping.js';
export { insertMemories, memoryDocument, type NewMemory } from './memory-docs.js';
export { MongoMemoryStore, revFilter } from './memory-store.js';
export { createModels, ensureIndexes, type Models } from './models.js';
export {
  countByStage,
  type DueMemory,
  findMemory,
  findVectorPending,
  markVectorPending,
  markVectorSynced,
  streamDueMemories,
  streamInvalidMemories,
  usersWithMemories,
} from './queries.js';
export { type RollbackResult, rollbackStage } from './rollback.js';
export {
  type DiscardedCount,
  type MemoryCounts,
  type RunBatches,
  type RunCounts,
  type RunError,
  type RunOutcome,
  type RunRecord,
  RunRepository,
  type RunState,
  type RunTrigger,
  type TransitionCount,
} from './run-repository.js';
export {
  checkIndexes,
  type IndexCheck,
  type NightCalls,
  roleCardsOf,
  sampleMemories,
  transitionsByNight,
} from './survey.js';
