import * as lancedb from '@lancedb/lancedb';
import type { Stage, VectorRecord, VectorStore } from '@memfade/core';
import { Field, FixedSizeList, Float32, Float64, Schema, Utf8 } from 'apache-arrow';

export interface LanceDbOptions {
  dir: string;
  table?: string;
  dimensions: number;
  embeddingModel: string;
}

const MODEL_KEY = 'memfade.embeddingModel';

function schemaFor(dimensions: number, embeddingModel: string): Schema {
  const text = (name: string) => new Field(name, new Utf8(), false);
  return new Schema(
    [
      text('id'),
      text('userId'),
      text('partnerId'),
      text('stage'),
      text('text'),
      new Field('vector', new FixedSizeList(dimensions, new Field('item', new Float32(), true)), false),
      text('embeddingModel'),
      // Milliseconds since the epoch: a plain number survives every Arrow/JS round trip unchanged.
      new Field('updatedAt', new Float64(), false),
    ],
    new Map([[MODEL_KEY, embeddingModel]]),
  );
}

const quote = (value: string) => `'${value.replaceAll("'", "''")}'`;

function reindexHint(dir: string): string {
  return `move the vector folder ${dir} aside and run \`memfade reindex --all\` to rebuild it with the current embedder`;
}

/** LanceDB on local disk (the embedded default). Writes are batched by the caller: one merge per batch. */
export class LanceDbVectorStore implements VectorStore {
  private constructor(
    private readonly connection: lancedb.Connection,
    private readonly table: lancedb.Table,
    private readonly options: LanceDbOptions,
  ) {}

  static async open(options: LanceDbOptions): Promise<LanceDbVectorStore> {
    const connection = await lancedb.connect(options.dir);
    const name = options.table ?? 'memories';
    const schema = schemaFor(options.dimensions, options.embeddingModel);
    const existing = (await connection.tableNames()).includes(name);
    const table = existing
      ? await connection.openTable(name)
      : await connection.createEmptyTable(name, schema);
    if (existing) await LanceDbVectorStore.checkCompatible(table, options);
    return new LanceDbVectorStore(connection, table, options);
  }

  /** A table built by another embedder cannot be mixed with new vectors: say so, and how to fix it. */
  private static async checkCompatible(table: lancedb.Table, options: LanceDbOptions): Promise<void> {
    const schema = await table.schema();
    const vector = schema.fields.find((f) => f.name === 'vector')?.type as FixedSizeList | undefined;
    const dimensions = vector?.listSize;
    const model = schema.metadata.get(MODEL_KEY);
    if (dimensions !== options.dimensions || model !== options.embeddingModel) {
      throw new Error(
        `vector store at ${options.dir} holds ${dimensions}-dimension vectors from '${model}', but the embedder is ` +
          `'${options.embeddingModel}' with ${options.dimensions} dimensions: ${reindexHint(options.dir)}`,
      );
    }
  }

  async upsert(records: VectorRecord[]): Promise<void> {
    if (records.length === 0) return;
    for (const record of records) {
      if (record.vector.length !== this.options.dimensions) {
        throw new Error(
          `vector of memory ${record.id} has ${record.vector.length} dimensions, the store expects ` +
            `${this.options.dimensions}: ${reindexHint(this.options.dir)}`,
        );
      }
    }
    const rows = records.map((r) => ({ ...r, updatedAt: r.updatedAt.getTime() }));
    const data = lancedb.makeArrowTable(rows, {
      schema: schemaFor(this.options.dimensions, this.options.embeddingModel),
    });
    await this.table.mergeInsert('id').whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(data);
  }

  async get(ids: string[]): Promise<VectorRecord[]> {
    const out: VectorRecord[] = [];
    for (let i = 0; i < ids.length; i += 500) {
      const chunk = ids.slice(i, i + 500);
      const rows = await this.table
        .query()
        .where(`id IN (${chunk.map(quote).join(', ')})`)
        .toArray();
      out.push(...rows.map(toRecord));
    }
    return out;
  }

  count(): Promise<number> {
    return this.table.countRows();
  }

  async search(vector: number[], options: { userId?: string; limit: number }): Promise<VectorRecord[]> {
    let query = this.table.vectorSearch(vector).limit(options.limit);
    if (options.userId !== undefined) query = query.where(`userId = ${quote(options.userId)}`);
    return (await query.toArray()).map(toRecord);
  }

  /** Compacts the small fragments that many merges leave behind. */
  async optimize(): Promise<void> {
    await this.table.optimize();
  }

  async close(): Promise<void> {
    this.table.close();
    this.connection.close();
  }
}

function toRecord(row: Record<string, unknown>): VectorRecord {
  return {
    id: String(row.id),
    userId: String(row.userId),
    partnerId: String(row.partnerId),
    stage: row.stage as Stage,
    text: String(row.text),
    vector: Array.from(row.vector as Iterable<number>),
    embeddingModel: String(row.embeddingModel),
    updatedAt: new Date(Number(row.updatedAt)),
  };
}
