import { type Connection, type Model, Schema } from 'mongoose';
import { DEFAULT_MAPPING, type JoinedTurns, keyParts, type Mapping } from './mapping.js';

/**
 * The memories' schema, its indexes at the mapped paths (the due scan index follows the mapped
 * stage and creation date). strict: false and no declared fields: the product owns these
 * documents, and memfade must never strip or cast a field it does not know. The indexes of the
 * product's collections are created only when the operator asks (`memfade doctor --create-indexes`,
 * docs/design.md invariant 10), and none is unique: a constraint on the product's data could refuse the
 * product's own writes.
 */
/** An `_id` the mapping uses as a key holds the product's ids as they are (no cast to ObjectId). */
const idOf = (path: string) => (path === '_id' ? { _id: Schema.Types.Mixed } : {});

function memorySchema(mapping: Mapping): Schema {
  const f = mapping.fields;
  const schema = new Schema(idOf(f.memoryId), { strict: false, versionKey: false, minimize: false });
  // `_id` has its index already, and MongoDB refuses an index option on it.
  const byId = () => {
    if (f.memoryId !== '_id') schema.index({ [f.memoryId]: 1 }, { name: 'memory_id' });
  };
  if (mapping.side) {
    // Side-collection mode: the stage is not here; enrolment range-scans the creation date.
    schema.index({ [f.createdAt]: 1 }, { name: 'created' });
    byId();
    schema.index({ [f.userId]: 1 }, { name: 'user' });
    return schema;
  }
  schema.index({ [f.stage]: 1, [f.createdAt]: 1 }, { name: 'due_scan' });
  byId();
  schema.index(
    { [f.vectorPending]: 1 },
    { name: 'vector_pending', partialFilterExpression: { [f.vectorPending]: true } },
  );
  schema.index({ [f.userId]: 1 }, { name: 'user' });
  schema.index({ [`${f.history}.runId`]: 1 }, { name: 'history_run' });
  return schema;
}

/**
 * Side-collection mode: one document of memfade's per memory, `_id` the memory id (unique), with
 * the user, the creation date copied from the product (a BSON date) and memfade's fields.
 */
function sideSchema(mapping: Mapping): Schema {
  const f = mapping.fields;
  const schema = new Schema({ _id: String }, { strict: false, versionKey: false, minimize: false });
  schema.index({ [f.stage]: 1, createdAt: 1 }, { name: 'due_scan' });
  schema.index(
    { [f.vectorPending]: 1 },
    { name: 'vector_pending', partialFilterExpression: { [f.vectorPending]: true } },
  );
  schema.index({ userId: 1 }, { name: 'user' });
  // A run's settling counts (run-memory-counts.ts) find the memories it applied stages to.
  schema.index({ [`${f.history}.runId`]: 1 }, { name: 'history_run' });
  return schema;
}

/** Joined turns: one query per memory, its turns in order, by this index. */
function turnSchema(joined: JoinedTurns): Schema {
  const schema = new Schema({}, { strict: false, versionKey: false });
  schema.index({ [joined.memoryId]: 1, [joined.order]: 1 }, { name: 'memfade_turns' });
  return schema;
}

/** The card lookup's index: the key fields (role-cards.ts); not unique, duplicates are resolved. */
function roleCardSchema(mapping: Mapping): Schema {
  // A default card for everyone: memfade never reads the role card collection.
  const paths = 'keys' in mapping.roleCard ? keyParts(mapping.roleCard).map(([, path]) => path) : [];
  const schema = new Schema(idOf(paths.includes('_id') ? '_id' : ''), { strict: false, versionKey: false });
  // `_id` alone is indexed already.
  if (paths.length && paths.join() !== '_id')
    schema.index(Object.fromEntries(paths.map((path) => [path, 1])), { name: 'memfade_role_card' });
  return schema;
}

const runSchema = new Schema(
  {
    runId: String,
    trigger: String,
    asOf: Date,
    startedAt: Date,
    producerDoneAt: Date,
    finishedAt: Date,
    durationMs: Number,
    interrupted: Boolean,
    producerDied: String,
    users: Number,
    counts: Schema.Types.Mixed,
    tokens: Schema.Types.Mixed,
    cost: Schema.Types.Mixed,
    unanswered: Schema.Types.Mixed,
    ratioSums: Schema.Types.Mixed,
    batches: Schema.Types.Mixed,
  },
  { versionKey: false, minimize: false },
);
runSchema.index({ runId: 1 }, { unique: true, name: 'run_id' });
runSchema.index({ startedAt: -1 }, { name: 'started' });

// One document per failed memory: many workers report at once, and a night with many failures
// must not grow the run document without bound.
const runErrorSchema = new Schema(
  { runId: String, memoryId: String, stage: String, message: String, at: Date },
  { versionKey: false },
);
runErrorSchema.index({ runId: 1, at: -1 }, { name: 'run_errors' });
// A retried job that fails again updates its entry (RunRepository.recordError upserts on these).
runErrorSchema.index({ runId: 1, memoryId: 1, stage: 1 }, { name: 'run_error_memory' });

// Batch mode (batch-record.ts): what each batch request stands for, written before it is
// submitted, and each batch of a run's round with its provider id once accepted.
const batchRequestSchema = new Schema(
  {
    runId: String,
    round: Number,
    customId: String,
    memoryId: String,
    userId: String,
    target: String,
    stage: String,
    expectedStage: String,
    expectedRev: Number,
    inputHash: String,
    state: String,
    batchId: String,
    attempts: Number,
    error: String,
    carried: Schema.Types.Mixed,
    discarded: Schema.Types.Mixed,
    reserved: Schema.Types.Mixed,
    lineCeiling: Schema.Types.Mixed,
    line: String,
    alone: Boolean,
    updatedAt: Date,
  },
  { versionKey: false, minimize: false },
);
batchRequestSchema.index({ customId: 1 }, { unique: true, name: 'custom_id' });
// MEMORIES_PER_REQUEST > 1: a round in user order (the submit job's cursor), and a group line's
// requests by its custom id (applying its result); absent on requests that are their own line.
batchRequestSchema.index({ runId: 1, round: 1, userId: 1, customId: 1 }, { name: 'run_round_user' });
batchRequestSchema.index({ line: 1 }, { name: 'group_line', sparse: true });
batchRequestSchema.index({ runId: 1, state: 1 }, { name: 'run_state' });
// A user's requests, for `memfade forget --user` once the product has deleted the user's memories.
batchRequestSchema.index({ userId: 1 }, { name: 'user', sparse: true });
// A round's requests in custom-id order (the submit job's cursor) without sorting the round in memory.
batchRequestSchema.index({ runId: 1, round: 1, customId: 1 }, { name: 'run_round_order' });

const batchSchema = new Schema(
  {
    runId: String,
    round: Number,
    index: Number,
    customIds: [String],
    state: String,
    batchId: String,
    submittingAt: Date,
    submittedAt: Date,
    endedAt: Date,
    canceledAt: Date,
    failure: String,
    lines: Number,
    eraseFiles: Boolean,
    filesDeletedAt: Date,
    filesDeleted: [String],
  },
  { versionKey: false, minimize: false },
);
batchSchema.index({ runId: 1, round: 1, index: 1 }, { unique: true, name: 'run_round_index' });

// One document per memory a run holds (holds.ts): `_id` is the memory id, so two runs cannot hold it.
const holdSchema = new Schema({ _id: String, runId: String, at: Date }, { versionKey: false });
holdSchema.index({ runId: 1 }, { name: 'run' });

// One document per user and run (user-costs.ts): the run's tokens and cost by user.
const userCostSchema = new Schema(
  {
    runId: String,
    userId: String,
    night: String,
    tokens: Schema.Types.Mixed,
    cost: Number,
    memories: Number,
    reservedUsd: Number,
    overBudget: Number,
  },
  { versionKey: false, minimize: false },
);
userCostSchema.index({ runId: 1, userId: 1 }, { unique: true, name: 'run_user' });
userCostSchema.index({ runId: 1, cost: -1 }, { name: 'run_cost' });
userCostSchema.index({ userId: 1, night: -1 }, { name: 'user_night' });

/** Documents are the product's: typed loosely here, validated by core's parseMemory where it matters. */
export type LooseModel = Model<Record<string, unknown>>;

export interface Models {
  /** Where the product keeps what memfade reads and writes: every db function reads it from here. */
  mapping: Mapping;
  /** The product's memory documents. */
  memories: LooseModel;
  /**
   * The documents holding memfade's fields (mapping.mine): the side collection in side-collection
   * mode, else the product's memories themselves.
   */
  mine: LooseModel;
  /** The joined turn documents (memory.conversation.collection), when mapped. */
  turns?: LooseModel;
  /** memfade's small state documents (the enrolment watermark). */
  state: LooseModel;
  roleCards: LooseModel;
  runs: LooseModel;
  runErrors: LooseModel;
  batchRequests: LooseModel;
  batches: LooseModel;
  holds: LooseModel;
  userCosts: LooseModel;
}

function model(connection: Connection, name: string, schema: Schema, collection: string): LooseModel {
  return connection.model(name, schema, collection) as unknown as LooseModel;
}

export function createModels(connection: Connection, mapping: Mapping = DEFAULT_MAPPING): Models {
  const collections = mapping.collections;
  const memories = model(connection, 'Memory', memorySchema(mapping), collections.memories);
  return {
    mapping,
    memories,
    mine: mapping.side
      ? model(connection, 'MemfadeSide', sideSchema(mapping), mapping.mine.collection)
      : memories,
    ...(mapping.joined && {
      turns: model(connection, 'MemoryTurn', turnSchema(mapping.joined), mapping.joined.collection),
    }),
    state: model(
      connection,
      'CompressionState',
      new Schema({ _id: String }, { strict: false, versionKey: false }),
      collections.state,
    ),
    roleCards: model(connection, 'RoleCard', roleCardSchema(mapping), collections.roleCards),
    runs: model(connection, 'CompressionRun', runSchema as Schema, collections.runs),
    runErrors: model(connection, 'CompressionRunError', runErrorSchema as Schema, collections.runErrors),
    batchRequests: model(
      connection,
      'CompressionBatchRequest',
      batchRequestSchema as Schema,
      collections.batchRequests,
    ),
    batches: model(connection, 'CompressionBatch', batchSchema as Schema, collections.batches),
    holds: model(connection, 'CompressionHold', holdSchema as Schema, collections.holds),
    userCosts: model(connection, 'CompressionUserCost', userCostSchema as Schema, collections.userCosts),
  };
}

/**
 * The product's collections memfade has indexes for: its memories (with memfade's fields unless in
 * side-collection mode), the joined turns and the role cards. memfade creates none of them unless
 * the operator asks (`memfade doctor --create-indexes`, docs/design.md invariant 10).
 */
export const productModelsOf = (models: Models): LooseModel[] => [
  models.memories,
  ...(models.turns ? [models.turns] : []),
  models.roleCards,
];

/** memfade's own collections with indexes: runs, errors, batch records, holds, the side collection. */
export const ownModelsOf = (models: Models): LooseModel[] => [
  ...(models.mine === models.memories ? [] : [models.mine]),
  models.runs,
  models.runErrors,
  models.batchRequests,
  models.batches,
  models.holds,
  models.userCosts,
];

/** Every collection memfade has indexes for: its own, then the product's. */
export const modelsOf = (models: Models): LooseModel[] => [
  ...ownModelsOf(models),
  ...productModelsOf(models),
];

/** Creates the indexes of memfade's own collections (idempotent): every app does, at open. */
export async function ensureOwnIndexes(models: Models): Promise<void> {
  await Promise.all(ownModelsOf(models).map((m) => m.createIndexes()));
}

/**
 * Creates every index memfade relies on, the product's collections' too (idempotent): what tests set
 * up. `memfade doctor --create-indexes` creates the missing ones one by one (survey.ts).
 */
export async function ensureIndexes(models: Models): Promise<void> {
  await Promise.all(modelsOf(models).map((m) => m.createIndexes()));
}
