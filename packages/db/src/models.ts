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

/** Documents are the product's: typed loosely here, validated by core's parseMemory where it matters. */
export type LooseModel = Model<Record<string, unknown>>;

export interface Models {
  memories: LooseModel;
  roleCards: LooseModel;
  runs: LooseModel;
  runErrors: LooseModel;
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
  };
}

/** Creates the indexes memfade relies on (idempotent). */
export async function ensureIndexes(models: Models): Promise<void> {
  await Promise.all(Object.values(models).map((m) => m.createIndexes()));
}
