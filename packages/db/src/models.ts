import { type Connection, type Model, Schema } from 'mongoose';
import { DEFAULT_MAPPING, type Mapping } from './mapping.js';

/**
 * The memories' schema, its indexes at the mapped paths (the due scan index follows the mapped
 * stage and creation date). strict: false and no declared fields: the product owns these
 * documents, and memfade must never strip or cast a field it does not know.
 */
/** An `_id` the mapping uses as a key holds the product's ids as they are (no cast to ObjectId). */
const idOf = (path: string) => (path === '_id' ? { _id: Schema.Types.Mixed } : {});

function memorySchema(mapping: Mapping): Schema {
  const f = mapping.fields;
  const schema = new Schema(idOf(f.memoryId), { strict: false, versionKey: false, minimize: false });
  schema.index({ [f.stage]: 1, [f.createdAt]: 1 }, { name: 'due_scan' });
  // `_id` is unique already, and MongoDB refuses an index option on it.
  if (f.memoryId !== '_id') schema.index({ [f.memoryId]: 1 }, { unique: true, name: 'memory_id' });
  schema.index(
    { [f.vectorPending]: 1 },
    { name: 'vector_pending', partialFilterExpression: { [f.vectorPending]: true } },
  );
  schema.index({ [f.userId]: 1 }, { name: 'user' });
  return schema;
}

function roleCardSchema(mapping: Mapping): Schema {
  const key = 'paths' in mapping.roleCard ? mapping.roleCard.paths.key : '';
  const schema = new Schema(idOf(key), { strict: false, versionKey: false });
  // A default card for everyone: memfade never reads the role card collection.
  if ('paths' in mapping.roleCard && mapping.roleCard.paths.key !== '_id')
    schema.index({ [mapping.roleCard.paths.key]: 1 }, { unique: true, name: 'user' });
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
  /** Where the product keeps what memfade reads and writes: every db function reads it from here. */
  mapping: Mapping;
  memories: LooseModel;
  roleCards: LooseModel;
  runs: LooseModel;
  runErrors: LooseModel;
}

function model(connection: Connection, name: string, schema: Schema, collection: string): LooseModel {
  return connection.model(name, schema, collection) as unknown as LooseModel;
}

export function createModels(connection: Connection, mapping: Mapping = DEFAULT_MAPPING): Models {
  const collections = mapping.collections;
  return {
    mapping,
    memories: model(connection, 'Memory', memorySchema(mapping), collections.memories),
    roleCards: model(connection, 'RoleCard', roleCardSchema(mapping), collections.roleCards),
    runs: model(connection, 'CompressionRun', runSchema as Schema, collections.runs),
    runErrors: model(connection, 'CompressionRunError', runErrorSchema as Schema, collections.runErrors),
  };
}

/** memfade's collections, as models (the mapping is not one). */
export const modelsOf = (models: Models): LooseModel[] => [
  models.memories,
  models.roleCards,
  models.runs,
  models.runErrors,
];

/** Creates the indexes memfade relies on (idempotent). */
export async function ensureIndexes(models: Models): Promise<void> {
  await Promise.all(modelsOf(models).map((m) => m.createIndexes()));
}
