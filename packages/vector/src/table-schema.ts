/** The Arrow schema of LanceDB's memories table, its embedder check, and row mapping. */
import type { Stage, VectorRecord } from '@memfade/core';
import type { Schema } from 'apache-arrow';
import { arrow as loadArrow } from './arrow.js';
import { checkLayout, type StoreSpec } from './store-spec.js';

/** Schema metadata key naming the model that produced the table's vectors (dimensions alone can collide). */
export const MODEL_KEY = 'memfade.embeddingModel';

export function tableSchema(dimensions: number, embeddingModel: string): Schema {
  const arrow = loadArrow();
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

/** Throws when an existing table was built by another embedder: its vectors cannot be compared with new ones. */
export function checkTable(found: Schema, spec: StoreSpec): void {
  const vectorType = found.fields.find((f) => f.name === 'vector')?.type;
  const arrow = loadArrow();
  // By type id rather than instanceof, so a second copy of apache-arrow cannot make this lie.
  const dimensions = arrow.DataType.isFixedSizeList(vectorType) ? vectorType.listSize : undefined;
  const expected = tableSchema(spec.dimensions, spec.embeddingModel).fields.map((f) => f.name);
  const missing = expected.filter((name) => !found.fields.some((f) => f.name === name));
  checkLayout(
    missing.length > 0 ? { missing } : { dimensions, embeddingModel: found.metadata.get(MODEL_KEY) },
    spec,
  );
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
