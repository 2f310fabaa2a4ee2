import type { DeletedPurge, ListIdsOptions, Stage, VectorRecord, VectorStore } from '@memfade/core';
import type { AnyBulkWriteOperation, Collection, Db, Document } from 'mongodb';
import {
  checkDimensions,
  checkLayout,
  checkQueryVector,
  checkRecord,
  chunks,
  latestById,
  listLimit,
  type StoreSpec,
} from './store-spec.js';

export interface MongoVectorOptions {
  /** The product's database: a driver `Db`, or a mongoose Connection (its `.db` is used). */
  db: Db | { db?: Db | undefined };
  /** Collection of the records (default 'memfade_vectors'). */
  collection?: string;
  /** Name of the `$vectorSearch` index (default 'memfade_vector_index'). */
  searchIndex?: string;
  dimensions: number;
  embeddingModel: string;
}

interface VectorDocument {
  _id: string;
  userId: string;
  partnerId: string;
  stage: Stage;
  text: string;
  embedding: number[];
  embeddingModel: string;
  updatedAt: Date;
  rev: number;
}

/** The one document of the collection that is not a record: which embedder the vectors come from. */
interface LayoutDocument {
  _id: string;
  dimensions: number;
  embeddingModel: string;
}

/**
 * Kept in the records' own collection, so dropping that one collection (what the mismatch message
 * says to do) also forgets the embedder. It has no `embedding`, so the search index skips it, and no
 * `userId`; every other query excludes it by id.
 */
const LAYOUT_ID = '__memfade_vector_store__';
const DUPLICATE_KEY = 11000;
/** Operations per bulkWrite and ids per `$in`, so no single command grows with the caller's batch. */
const CHUNK = 1000;

/** What ensureSearchIndex found or did; `definition` and `command` tell an operator how to create it by hand. */
export interface SearchIndexOutcome {
  status: 'exists' | 'created' | 'unsupported';
  name: string;
  definition: ReturnType<typeof vectorSearchIndexDefinition>;
  /** The mongosh command that creates the index. */
  command: string;
  /** Why the server did not create it (status 'unsupported'). */
  reason?: string;
}

/**
 * The Atlas Vector Search / MongoDB 8.2+ (mongot) index `$vectorSearch` needs: cosine over the
 * embeddings, and userId as a filter field so a user's search is filtered inside the index.
 */
export function vectorSearchIndexDefinition(dimensions: number) {
  return {
    fields: [
      {
        type: 'vector' as const,
        path: 'embedding',
        numDimensions: dimensions,
        similarity: 'cosine' as const,
      },
      { type: 'filter' as const, path: 'userId' },
    ],
  };
}

/**
 * Vectors in the product's own MongoDB. Writes work on any MongoDB (and on the test wire server);
 * search needs `$vectorSearch`, which only Atlas or MongoDB 8.2+ with mongot (the search process)
 * serve, and the index from vectorSearchIndexDefinition. Like pgvector, no lock between replicas:
 * each record's write is one conditional update of one document, atomic on the server.
 */
export class MongoVectorStore implements VectorStore {
  /**
   * What open() found or did about the search index. 'unsupported' is not an error (writes work, and
   * the sweep and erasure need no search), but the caller should show `command` to the operator.
   */
  searchIndex: SearchIndexOutcome | undefined;

  private constructor(
    private readonly collection: Collection<VectorDocument>,
    private readonly spec: StoreSpec & { collection: string; searchIndex: string },
  ) {}

  /** Checks (or records, on first use) the embedder of the collection and creates the userId index. */
  static async open(options: MongoVectorOptions): Promise<MongoVectorStore> {
    checkDimensions(options.dimensions);
    const db = 'databaseName' in options.db ? options.db : options.db.db;
    if (!db) throw new Error('the MongoDB connection for the vector store is not open yet');
    const name = options.collection ?? 'memfade_vectors';
    const store = new MongoVectorStore(db.collection<VectorDocument>(name), {
      collection: name,
      searchIndex: options.searchIndex ?? 'memfade_vector_index',
      name: `MongoDB vector collection '${name}'`,
      clear: `drop the collection (db.${name}.drop())`,
      dimensions: options.dimensions,
      embeddingModel: options.embeddingModel,
    });
    await store.checkLayout();
    // deleteByUser and listIds({ userId }) in id order. createIndexes, not the create command,
    // which the test wire server lacks and a real server does not need.
    await store.collection.createIndex({ userId: 1, _id: 1 }, { name: 'memfade_user_id' });
    store.searchIndex = await store.ensureSearchIndex();
    return store;
  }

  private get layouts(): Collection<LayoutDocument> {
    return this.collection as unknown as Collection<LayoutDocument>;
  }

  private async checkLayout(): Promise<void> {
    let found = await this.layouts.findOne({ _id: LAYOUT_ID });
    if (!found) {
      const layout = {
        _id: LAYOUT_ID,
        dimensions: this.spec.dimensions,
        embeddingModel: this.spec.embeddingModel,
      };
      try {
        await this.layouts.insertOne(layout);
        found = layout;
      } catch (error) {
        // Another replica recorded it first: check against what it wrote.
        if (!isDuplicateKey(error)) throw error;
        found = await this.layouts.findOne({ _id: LAYOUT_ID });
      }
    }
    checkLayout({ dimensions: found?.dimensions, embeddingModel: found?.embeddingModel }, this.spec);
  }

  /**
   * One updateOne per record, filtered on `rev <= new rev`, with upsert. When a newer record exists
   * the filter matches nothing and the upsert tries to insert a second document with that _id: the
   * unique _id index refuses it (duplicate key), which means "a newer record wins", not a failure.
   * A duplicate key also comes from another writer inserting the same new id between this write's
   * match and its insert; that record may be older, so those ids are written once more without
   * upsert, now that the document exists, and the rev filter decides.
   */
  async upsert(records: VectorRecord[]): Promise<void> {
    if (records.length === 0) return;
    for (const record of records) {
      checkRecord(record, this.spec);
      if (record.id === LAYOUT_ID) throw new Error(`memory id ${LAYOUT_ID} is reserved by the vector store`);
    }
    for (const chunk of chunks(latestById(records), CHUNK)) {
      const conflicts = await this.write(chunk, true);
      if (conflicts.length > 0) await this.write(conflicts, false);
    }
  }

  /** Writes the records; resolves to those refused with a duplicate key (only possible with upsert). */
  private async write(records: VectorRecord[], upsert: boolean): Promise<VectorRecord[]> {
    const operations: AnyBulkWriteOperation<VectorDocument>[] = records.map((r) => ({
      updateOne: {
        filter: { _id: r.id, rev: { $lte: r.rev } },
        update: {
          $set: {
            userId: r.userId,
            partnerId: r.partnerId,
            stage: r.stage,
            text: r.text,
            embedding: r.vector,
            embeddingModel: r.embeddingModel,
            updatedAt: r.updatedAt,
            rev: r.rev,
          },
        },
        upsert,
      },
    }));
    try {
      // Unordered: one refused record must not stop the others.
      await this.collection.bulkWrite(operations, { ordered: false });
      return [];
    } catch (error) {
      const writeErrors = bulkWriteErrors(error);
      if (writeErrors.length > 0 && writeErrors.every((e) => e.code === DUPLICATE_KEY)) {
        return writeErrors.map((e) => records[e.index]!);
      }
      // The test wire server fails the whole unordered bulkWrite at its first duplicate key, without
      // per-operation errors, so the writes after it may not have run. Writing each record alone
      // again is correct on any server: a record already written is rewritten with the same values.
      if (writeErrors.length === 0 && isDuplicateKey(error)) return this.writeOneByOne(operations, records);
      throw error;
    }
  }

  private async writeOneByOne(
    operations: AnyBulkWriteOperation<VectorDocument>[],
    records: VectorRecord[],
  ): Promise<VectorRecord[]> {
    const conflicts: VectorRecord[] = [];
    for (const [i, operation] of operations.entries()) {
      try {
        await this.collection.bulkWrite([operation]);
      } catch (error) {
        if (!isDuplicateKey(error) && !bulkWriteErrors(error).some((e) => e.code === DUPLICATE_KEY))
          throw error;
        conflicts.push(records[i]!);
      }
    }
    return conflicts;
  }

  /** The stored records among these ids, in the order asked; unknown ids are left out. */
  async get(ids: string[]): Promise<VectorRecord[]> {
    const wanted = [...new Set(ids)].filter((id) => id !== LAYOUT_ID);
    const found = new Map<string, VectorRecord>();
    for (const chunk of chunks(wanted, CHUNK)) {
      for (const doc of await this.collection.find({ _id: { $in: chunk } }).toArray()) {
        found.set(doc._id, toRecord(doc));
      }
    }
    return wanted.flatMap((id) => found.get(id) ?? []);
  }

  async count(): Promise<number> {
    return this.collection.countDocuments({ _id: { $ne: LAYOUT_ID } });
  }

  /**
   * `$vectorSearch` by cosine, filtered by user inside the index. Runs only on Atlas or MongoDB 8.2+
   * with mongot and the index of vectorSearchIndexDefinition (see ensureSearchIndex); elsewhere the
   * server rejects the stage and this says what is missing.
   */
  async search(vector: number[], options: { userId?: string; limit: number }): Promise<VectorRecord[]> {
    checkQueryVector(vector, this.spec);
    if (options.limit <= 0) return [];
    const stage: Document = {
      index: this.spec.searchIndex,
      path: 'embedding',
      queryVector: vector,
      // Approximate search looks at this many neighbours before keeping `limit`: MongoDB recommends
      // 10-20 times the limit for good recall; 10000 is its maximum.
      numCandidates: Math.min(10_000, Math.max(100, options.limit * 20)),
      limit: options.limit,
    };
    if (options.userId !== undefined) stage.filter = { userId: { $eq: options.userId } };
    try {
      const docs = await this.collection.aggregate<VectorDocument>([{ $vectorSearch: stage }]).toArray();
      return docs.map(toRecord);
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      throw new Error(
        `MongoDB vector search failed (${why}): it needs Atlas or MongoDB 8.2+ with mongot, and the ` +
          `search index '${this.spec.searchIndex}' on ${this.spec.collection}: ${this.indexCommand()}`,
      );
    }
  }

  /**
   * Creates the `$vectorSearch` index when the server can (Atlas, MongoDB 8.2+ with mongot) and it
   * does not exist yet. Elsewhere it changes nothing and returns the definition and the mongosh
   * command for an operator to run where search is available. The server builds the index in the
   * background: search finds new records only once they are indexed.
   */
  async ensureSearchIndex(): Promise<SearchIndexOutcome> {
    const outcome = {
      name: this.spec.searchIndex,
      definition: vectorSearchIndexDefinition(this.spec.dimensions),
      command: this.indexCommand(),
    };
    try {
      const existing = await this.collection.listSearchIndexes(this.spec.searchIndex).toArray();
      if (existing.length > 0) return { status: 'exists', ...outcome };
      await this.collection.createSearchIndex({
        name: this.spec.searchIndex,
        type: 'vectorSearch',
        definition: outcome.definition,
      });
      return { status: 'created', ...outcome };
    } catch (error) {
      return {
        status: 'unsupported',
        reason: error instanceof Error ? error.message : String(error),
        ...outcome,
      };
    }
  }

  private indexCommand(): string {
    const index = {
      name: this.spec.searchIndex,
      type: 'vectorSearch',
      definition: vectorSearchIndexDefinition(this.spec.dimensions),
    };
    return `db.${this.spec.collection}.createSearchIndex(${JSON.stringify(index)})`;
  }

  async delete(ids: string[]): Promise<number> {
    let deleted = 0;
    const wanted = [...new Set(ids)].filter((id) => id !== LAYOUT_ID);
    for (const chunk of chunks(wanted, CHUNK)) {
      deleted += (await this.collection.deleteMany({ _id: { $in: chunk } })).deletedCount;
    }
    return deleted;
  }

  async deleteUnchanged(records: Pick<VectorRecord, 'id' | 'text'>[]): Promise<number> {
    let deleted = 0;
    const wanted = records.filter((r) => r.id !== LAYOUT_ID);
    for (const chunk of chunks(wanted, CHUNK)) {
      const match = chunk.map((r) => ({ _id: r.id, text: r.text }));
      deleted += (await this.collection.deleteMany({ $or: match })).deletedCount;
    }
    return deleted;
  }

  async deleteByUser(userId: string): Promise<number> {
    return (await this.collection.deleteMany({ userId })).deletedCount;
  }

  /** In _id order, which MongoDB compares as binary strings: the order the port promises. */
  async listIds(options?: ListIdsOptions): Promise<string[]> {
    const limit = listLimit(options);
    const filter: Document = { _id: { $ne: LAYOUT_ID } };
    if (options?.after !== undefined) filter._id.$gt = options.after;
    if (options?.userId !== undefined) filter.userId = options.userId;
    const docs = await this.collection
      .find(filter, { projection: { _id: 1 } })
      .sort({ _id: 1 })
      .limit(limit)
      .toArray();
    return docs.map((doc) => doc._id);
  }

  /** Nothing to compact: MongoDB reuses the space of updated and deleted documents on its own. */
  async optimize(): Promise<void> {}

  /**
   * A deleted document keeps no version memfade could remove: nothing to do here. What MongoDB
   * itself keeps is said, as it is the operator's to bound (oplog size, backup retention).
   */
  async purgeDeleted(): Promise<DeletedPurge> {
    return {
      removed: 'nothing: MongoDB keeps no older version of a deleted document to purge',
      kept:
        "MongoDB's oplog (a replica set's, for its window), backups and the search index until it " +
        'catches up keep deleted records; the storage engine reuses their space, it does not zero it',
    };
  }

  /** The connection belongs to the caller (it is the product's MongoDB connection): nothing to close here. */
  async close(): Promise<void> {}
}

function isDuplicateKey(error: unknown): boolean {
  return (error as { code?: unknown })?.code === DUPLICATE_KEY;
}

/** The per-operation errors of a failed bulkWrite (none for any other failure). */
function bulkWriteErrors(error: unknown): { code: number; index: number }[] {
  const writeErrors = (error as { writeErrors?: unknown })?.writeErrors;
  if (writeErrors === undefined) return [];
  return (Array.isArray(writeErrors) ? writeErrors : [writeErrors]) as { code: number; index: number }[];
}

function toRecord(doc: VectorDocument): VectorRecord {
  return {
    id: doc._id,
    userId: doc.userId,
    partnerId: doc.partnerId,
    stage: doc.stage,
    text: doc.text,
    vector: doc.embedding,
    embeddingModel: doc.embeddingModel,
    updatedAt: doc.updatedAt,
    rev: doc.rev,
  };
}
