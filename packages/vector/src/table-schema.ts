/** The Arrow schema of the memories table, the checks that keep one embedder per table, and row mapping. */
import type { Stage, VectorRecord } from '@memfade/core';
import type { Schema } from 'apache-arrow';
import { arrow } from './arrow.js';

/** Schema metadata key naming the model that produced the table's vectors (dimensions alone can collide). */
export const MODEL_KEY = 'memfade.embeddingModel';

export interface TableSpec {
  dir: string;
  table: string;
  dimensions: number;
  embeddingModel: string;
}

export function tableSchema(dimensions: number, embeddingModel: string): Schema {
  const text = (name: string) => new arrow.Field(name, new arrow.Utf8(), false);
  return new arrow.Schema(
    [
      text('id'),
      text('userId'),
      text('partnerId'),
      text('stage'),
      text('text'),
      new arrow.Field(
        'vector',
        new arrow.FixedSizeList(dimensions, new arrow.Field('item', new arrow.Float32(), true)),
        false,
      ),
      text('embeddingModel'),
      // Milliseconds since the epoch: a plain number survives every Arrow/JS round trip unchanged.
      new arrow.Field('updatedAt', new arrow.Float64(), false),
      new arrow.Field('rev', new arrow.Float64(), false),
    ],
    new Map([[MODEL_KEY, embeddingModel]]),
  );
}

/**
 * What the operator must do when the table and the embedder disagree. The folder holds only vectors
 * derived from MongoDB, so removing it loses nothing that reindex cannot rebuild; it must go first
 * because reindex opens the same store and would hit the same mismatch.
 */
export function reindexHint(dir: string): string {
  return (
    `delete or rename the vector folder ${dir} (it holds only vectors derived from MongoDB), ` +
    'then run `memfade reindex --all` to re-embed every memory with the configured embedder'
  );
}

/** Throws when an existing table was built by another embedder: its vectors cannot be compared with new ones. */
export function checkTable(found: Schema, spec: TableSpec): void {
  const vectorType = found.fields.find((f) => f.name === 'vector')?.type;
  // By type id rather than instanceof, so a second copy of apache-arrow cannot make this lie.
  const dimensions = arrow.DataType.isFixedSizeList(vectorType) ? vectorType.listSize : undefined;
  const model = found.metadata.get(MODEL_KEY);
  const expected = tableSchema(spec.dimensions, spec.embeddingModel).fields.map((f) => f.name);
  const missing = expected.filter((name) => !found.fields.some((f) => f.name === name));
  if (dimensions === spec.dimensions && model === spec.embeddingModel && missing.length === 0) return;
  const what =
    missing.length > 0
      ? `lacks the columns ${missing.join(', ')}`
      : `holds ${dimensions ?? 'unknown-size'}-dimension vectors from embedding model '${model ?? 'unknown'}'`;
  throw new Error(
    `vector table '${spec.table}' in ${spec.dir} ${what}, but the configured embedder is ` +
      `'${spec.embeddingModel}' with ${spec.dimensions} dimensions: ${reindexHint(spec.dir)}`,
  );
}

/** Refuses a record the table cannot hold consistently, naming the memory so the operator can find it. */
export function checkRecord(record: VectorRecord, spec: TableSpec): void {
  if (record.vector.length !== spec.dimensions) {
    throw new Error(
      `memory ${record.id}: its vector has ${record.vector.length} dimensions, but the vector table in ` +
        `${spec.dir} expects ${spec.dimensions} (embedding model '${spec.embeddingModel}'). If the embedder ` +
        `changed, ${reindexHint(spec.dir)}`,
    );
  }
  if (record.embeddingModel !== spec.embeddingModel) {
    throw new Error(
      `memory ${record.id}: its vector comes from embedding model '${record.embeddingModel}', but the ` +
        `vector table in ${spec.dir} holds '${spec.embeddingModel}'. If the embedder changed, ${reindexHint(spec.dir)}`,
    );
  }
  // A NaN would be stored silently and poison every distance computed against it.
  if (!record.vector.every(Number.isFinite)) {
    throw new Error(`memory ${record.id}: its vector contains a value that is not a finite number`);
  }
  if (!Number.isInteger(record.rev)) {
    throw new Error(`memory ${record.id}: rev must be an integer, got ${record.rev}`);
  }
  if (Number.isNaN(record.updatedAt.getTime())) {
    throw new Error(`memory ${record.id}: updatedAt is an invalid date`);
  }
}

export function toRecord(row: Record<string, unknown>): VectorRecord {
  return {
    id: String(row.id),
    userId: String(row.userId),
    partnerId: String(row.partnerId),
    stage: row.stage as Stage,
    text: String(row.text),
    vector: Array.from(row.vector as Iterable<number>),
    embeddingModel: String(row.embeddingModel),
    updatedAt: new Date(Number(row.updatedAt)),
    rev: Number(row.rev),
  };
}
