/**
 * What the entry points use of MongoDB and the queues directly: status counts, inspect, import,
 * rollback and reindex, the doctor's survey of a product database, the run history. The apps reach
 * storage only through the application package (docs/design.md §2), so this list is the whole
 * surface they depend on.
 */
export {
  type CanonicalMemory,
  type CreationDates,
  checkIndexes,
  collectionSize,
  countByStage,
  createMissingIndexes,
  creationDates,
  type DateFormat,
  type DuplicateCardKey,
  describeCardKey,
  duplicateCardKeys,
  enrolmentWatermark,
  type FoundCard,
  findMemory,
  type IndexCheck,
  insertMemories,
  legacyUniqueIndexes,
  lookupKey,
  type Mapping,
  type Models,
  markVectorPending,
  type NightCalls,
  type RunError,
  type RunRecord,
  roleCardsOf,
  sampleMemories,
  transitionsByNight,
  type UserCost,
  usersWithMemories,
  valueAt,
} from '@memfade/db';
export { compressJobId, QUEUES, type Selection } from '@memfade/queue';
