import * as lancedb from '@lancedb/lancedb';
import type { VectorRecord, VectorStore } from '@memfade/core';
import type { Schema } from 'apache-arrow';
import { toArrowTable } from './arrow-batch.js';
import {
  checkRecord,
  checkTable,
  reindexHint,
  type TableSpec,
  tableSchema,
  toRecord,
} from './table-schema.js';

export interface LanceDbOptions {
  /** The LanceDB folder; created on first use. */
  dir: string;
  /** Table name inside the folder (default 'memories'). */
  table?: string;
  dimensions: number;
  embeddingModel: string;
}

/** Ids per `IN (...)` filter: keeps each SQL predicate small whatever the caller asks for. */
const GET_CHUNK = 500;

/**
 * Seconds after which a read looks for writes by other processes (the worker writes while the CLI
 * or a service reads). Without it a long-lived handle never sees them; checking on every read costs
 * a manifest lookup each time.
 */
const READ_CONSISTENCY_SECONDS = 1;

const sqlString = (value: string) => `'${value.replaceAll("'", "''")}'`;

/** LanceDB on local disk (the embedded default). Callers batch their writes: one merge-insert per batch. */
export class LanceDbVectorStore implements VectorStore {
  private table: lancedb.Table | undefined;
  private readonly schema: Schema;

  private constructor(
    private readonly connection: lancedb.Connection,
    private readonly spec: TableSpec,
  ) {
    this.schema = tableSchema(spec.dimensions, spec.embeddingModel);
  }

  /** Opens the folder and, when the table already exists, checks that it was built by the same embedder. */
  static async open(options: LanceDbOptions): Promise<LanceDbVectorStore> {
    if (!Number.isInteger(options.dimensions) || options.dimensions <= 0) {
      throw new Error(`vector dimensions must be a positive integer, got ${options.dimensions}`);
    }
    const connection = await lancedb.connect(options.dir, {
      readConsistencyInterval: READ_CONSISTENCY_SECONDS,
    });
    const store = new LanceDbVectorStore(connection, {
      dir: options.dir,
      table: options.table ?? 'memories',
      dimensions: options.dimensions,
      embeddingModel: options.embeddingModel,
    });
    try {
      // Fail at startup rather than at the first write after a model change.
      await store.tableFor(false);
    } catch (error) {
      connection.close();
      throw error;
    }
    return store;
  }

  /**
   * The table, opened and checked once. It is created (empty, with the explicit schema, so nothing is
   * inferred from the first batch) only when a write needs it; reads before that find nothing.
   */
  private async tableFor(create: true): Promise<lancedb.Table>;
  private async tableFor(create: false): Promise<lancedb.Table | undefined>;
  private async tableFor(create: boolean): Promise<lancedb.Table | undefined> {
    if (this.table) return this.table;
    const exists = (await this.connection.tableNames()).includes(this.spec.table);
    if (!exists && !create) return undefined;
    // existOk: another process (worker and CLI share the folder) may create it between the two calls.
    const table = exists
      ? await this.connection.openTable(this.spec.table)
      : await this.connection.createEmptyTable(this.spec.table, this.schema, { existOk: true });
    try {
      checkTable(await table.schema(), this.spec);
    } catch (error) {
      table.close();
      throw error;
    }
    // Two calls can race here; keep the first handle so every call uses the same one.
    if (this.table) {
      table.close();
      return this.table;
    }
    this.table = table;
    return table;
  }

  async upsert(records: VectorRecord[]): Promise<void> {
    if (records.length === 0) return;
    for (const record of records) checkRecord(record, this.spec);
    // One source row per id, the highest rev winning: LanceDB inserts duplicates of a new id and
    // rejects duplicates of an existing one.
    const latest = new Map<string, VectorRecord>();
    for (const record of records) {
      const seen = latest.get(record.id);
      if (!seen || seen.rev <= record.rev) latest.set(record.id, record);
    }
    const table = await this.tableFor(true);
    const data = toArrowTable([...latest.values()], this.schema);
    await table
      .mergeInsert('id')
      // A sync that read the memory before a newer write may land after the newer sync: it loses.
      .whenMatchedUpdateAll({ where: 'target.rev <= source.rev' })
      .whenNotMatchedInsertAll()
      .execute(data);
  }

  /** The stored records among these ids, in the order asked; unknown ids are left out. */
  async get(ids: string[]): Promise<VectorRecord[]> {
    const table = await this.tableFor(false);
    const wanted = [...new Set(ids)];
    if (!table || wanted.length === 0) return [];
    const found = new Map<string, VectorRecord>();
    for (let i = 0; i < wanted.length; i += GET_CHUNK) {
      const chunk = wanted.slice(i, i + GET_CHUNK);
      const rows = await table
        .query()
        .where(`\`id\` IN (${chunk.map(sqlString).join(', ')})`)
        .toArray();
      for (const row of rows) {
        const record = toRecord(row);
        found.set(record.id, record);
      }
    }
    return wanted.flatMap((id) => found.get(id) ?? []);
  }

  async count(): Promise<number> {
    const table = await this.tableFor(false);
    return table ? table.countRows() : 0;
  }

  /**
   * Nearest records first. L2 distance: the embedders return unit vectors, for which it ranks like
   * cosine without cosine's undefined result on an all-zero vector. The user filter runs before the
   * search (LanceDB's default prefilter), so a user still gets `limit` results when others are closer.
   */
  async search(vector: number[], options: { userId?: string; limit: number }): Promise<VectorRecord[]> {
    if (vector.length !== this.spec.dimensions) {
      throw new Error(
        `query vector has ${vector.length} dimensions, but the vector table in ${this.spec.dir} expects ` +
          `${this.spec.dimensions} (embedding model '${this.spec.embeddingModel}'). If the embedder changed, ` +
          reindexHint(this.spec.dir),
      );
    }
    const table = await this.tableFor(false);
    if (!table || options.limit <= 0) return [];
    let query = table.vectorSearch(vector).distanceType('l2').limit(options.limit);
    if (options.userId !== undefined) query = query.where(`\`userId\` = ${sqlString(options.userId)}`);
    return (await query.toArray()).map(toRecord);
  }

  /** Compacts the small fragments that many merges leave behind (the worker calls it after a run). */
  async optimize(): Promise<void> {
    const table = await this.tableFor(false);
    if (table) await table.optimize();
  }

  async close(): Promise<void> {
    if (this.table?.isOpen()) this.table.close();
    if (this.connection.isOpen()) this.connection.close();
  }
}
