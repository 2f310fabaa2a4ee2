import { type Connection, type Model, Schema } from 'mongoose';
import { COLLECTIONS, type CollectionNames, F } from './mapping.js';

// strict: false — the product owns these documents; memfade must never strip a field it does not know.
const memorySchema = new Schema(
  {
    memoryId: String,
    userId: String,
    partnerId: String,
    content: Schema.Types.Mixed,
    meta: Schema.Types.Mixed,
    compression: Schema.Types.Mixed,
    vectorSync: Schema.Types.Mixed,
    rev: Number,
  },
  { strict: false, versionKey: false, minimize: false },
);
memorySchema.index({ [F.stage]: 1, [F.createdAt]: 1 }, { name: 'due_scan' });
memorySchema.index({ [F.memoryId]: 1 }, { unique: true, name: 'memory_id' });
memorySchema.index(
  { [F.vectorPending]: 1 },
  { name: 'vector_pending', partialFilterExpression: { [F.vectorPending]: true } },
);
memorySchema.index({ [F.userId]: 1 }, { name: 'user' });

const roleCardSchema = new Schema({ userId: String }, { strict: false, versionKey: false });
roleCardSchema.index({ [F.roleCardUserId]: 1 }, { unique: true, name: 'user' });

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
    users: Number,
    counts: Schema.Types.Mixed,
    tokens: Schema.Types.Mixed,
    cost: Schema.Types.Mixed,
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

// Batch mode (batch-repository.ts): what each batch request stands for, written before it is
// submitted, and each batch of a run's round with its provider id once accepted.
const batchRequestSchema = new Schema(
  {
    runId: String,
    round: Number,
    customId: String,
    memoryId: String,
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
    updatedAt: Date,
  },
  { versionKey: false, minimize: false },
);
batchRequestSchema.index({ customId: 1 }, { unique: true, name: 'custom_id' });
batchRequestSchema.index({ runId: 1, state: 1 }, { name: 'run_state' });
batchRequestSchema.index({ runId: 1, round: 1 }, { name: 'run_round' });

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
  },
  { versionKey: false, minimize: false },
);
batchSchema.index({ runId: 1, round: 1, index: 1 }, { unique: true, name: 'run_round_index' });

/** Documents are the product's: typed loosely here, validated by core's parseMemory where it matters. */
export type LooseModel = Model<Record<string, unknown>>;

export interface Models {
  memories: LooseModel;
  roleCards: LooseModel;
  runs: LooseModel;
  runErrors: LooseModel;
  batchRequests: LooseModel;
  batches: LooseModel;
}

function model(connection: Connection, name: string, schema: Schema, collection: string): LooseModel {
  return connection.model(name, schema, collection) as unknown as LooseModel;
}

export function createModels(connection: Connection, names: Partial<CollectionNames> = {}): Models {
  const collections = { ...COLLECTIONS, ...names };
  return {
    memories: model(connection, 'Memory', memorySchema as Schema, collections.memories),
    roleCards: model(connection, 'RoleCard', roleCardSchema as Schema, collections.roleCards),
    runs: model(connection, 'CompressionRun', runSchema as Schema, collections.runs),
    runErrors: model(connection, 'CompressionRunError', runErrorSchema as Schema, collections.runErrors),
    batchRequests: model(
      connection,
      'CompressionBatchRequest',
      batchRequestSchema as Schema,
      collections.batchRequests,
    ),
    batches: model(connection, 'CompressionBatch', batchSchema as Schema, collections.batches),
  };
}

/** Creates the indexes memfade relies on (idempotent). */
export async function ensureIndexes(models: Models): Promise<void> {
  await Promise.all(Object.values(models).map((m) => m.createIndexes()));
}
