export {
  type BatchRecord,
  type BatchRequestRecord,
  type BatchRequestState,
  type BatchRequestUpdate,
  type BatchState,
  LIVE_REQUEST_STATES,
} from './batch-record.js';
export { BatchRepository } from './batch-repository.js';
export {
  type CanonicalMemory,
  canonical,
  canonicalRoleCard,
  type Joined,
  readDate,
  storedDate,
  withoutStored,
} from './canonical.js';
export { closeMongo, connectMongo, isMongoUnreachable, socketCode } from './connection.js';
export { type EnrolOptions, enrolMemories, enrolmentWatermark } from './enrolment.js';
export {
  countDerived,
  type DerivedCounts,
  type ForgetTarget,
  findMemories,
  flagVectorPending,
  forgetDerived,
  sweepOrphanSides,
  targetMemoryIds,
} from './erasure.js';
export { holdsByRun, type OpenRun, openRuns, vectorOutbox } from './health-readings.js';
export { MemoryHolds } from './holds.js';
export { idForms, idString, idsAt, idText, objectIdOf } from './ids.js';
export {
  COLLECTIONS,
  type CollectionNames,
  DATE_FORMATS,
  type DateFormat,
  DEFAULT_MAPPING,
  F,
  type Fields,
  type JoinedTurns,
  type Mapping,
  type MappingConfig,
  MappingError,
  type MineDocument,
  mappingSchema,
  parseMapping,
  type RoleCardCollection,
  type RoleCardKeys,
  resolveMapping,
  SIDE_KEYS,
  valueAt,
} from './mapping.js';
export {
  type Guard,
  joinAll,
  loadMemoryDocument,
  revFilter,
  writeMine,
} from './memory-documents.js';
export { insertMemories, memoryDocument, type NewMemory } from './memory-import.js';
export { type DuplicateCardsWarning, type MemoryStoreOptions, MongoMemoryStore } from './memory-store.js';
export { createModels, ensureIndexes, ensureOwnIndexes, type Models } from './models.js';
export { OWNER_MARK, productFields } from './ownership.js';
export { productFieldName } from './product-field-name.js';
export {
  countByStage,
  type DueMemory,
  type FlagAsRead,
  findMemory,
  findVectorPending,
  markVectorPending,
  markVectorSynced,
  presentMemories,
  stillFlagged,
  streamDueMemories,
  streamInvalidMemories,
  usersWithMemories,
} from './queries.js';
export {
  type CardOwner,
  cardKey,
  type DuplicateCardKey,
  describeCardKey,
  duplicateCardKeys,
  type FoundCard,
  findRoleCards,
  lookupKey,
} from './role-cards.js';
export { RollbackRefusedError, type RollbackResult, rollbackStage } from './rollback.js';
export { RunBudgets } from './run-budgets.js';
export type {
  DiscardedCount,
  MemoryCounts,
  MemoryEndCounts,
  PaidItem,
  RunBatches,
  RunBudget,
  RunCounts,
  RunError,
  RunOutcome,
  RunRecord,
  RunState,
  RunTrigger,
  TopUser,
  TransitionCount,
} from './run-record.js';
export { RunRepository } from './run-repository.js';
export {
  type CreationDates,
  checkIndexes,
  collectionSize,
  createMissingIndexes,
  creationDates,
  type IndexCheck,
  legacyUniqueIndexes,
  type NightCalls,
  roleCardsOf,
  sampleMemories,
  transitionsByNight,
} from './survey.js';
export {
  advanceSweepCursor,
  owePurge,
  purgeOwed,
  purgePaid,
  readSweepCursor,
  type SweepCursor,
} from './sweep-cursor.js';
export { UNATTRIBUTED_USER, UNKNOWN_USER, type UserCost, UserCosts } from './user-costs.js';
