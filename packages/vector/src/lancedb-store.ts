import type * as lancedb from '@lancedb/lancedb';
import type { DeletedPurge, ListIdsOptions, VectorRecord, VectorStore } from '@memfade/core';
import type { Schema } from 'apache-arrow';
import { toArrowTable } from './arrow-batch.js';
import { readThroughPurge } from './lance-reread.js';
import {
  checkDimensions,
  checkQueryVector,
  checkRecord,
  chunks,
  compareIds,
  latestById,
  listLimit,
  type StoreSpec,
} from './store-spec.js';
import { checkTable, tableSchema, toRecord } from './table-schema.js';

type TableSpec = StoreSpec & { dir: string; table: string };

/** What the table's layout looks like: how fragmented it is and what indexes it has. */
export interface LanceDbTableStats {
  rows: number;
  /** Data fragments; each write adds at least one until a compaction merges them. */
  fragments: number;
  /** Fragments LanceDB considers small enough to compact. */
  smallFragments: number;
  /** Table versions still on disk (every write makes one; optimize prunes old ones). */
  versions: number;
  /** Names of the indexes on the table. */
  indexes: string[];
  /** Compactions this handle ran (on its own or through optimize()). */
  compactions: number;
  /** Why the last automatic compaction failed, if it did (it is retried at the next write). */
  compactionError?: string;
}

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

/**
 * Compaction policy. Every merge-insert adds a fragment, and the next merge-insert pays for each
 * fragment it joins against, so without compaction a night's cost per memory grows with the table
 * and gets worse every night. Compaction, though, rewrites the whole table (LanceDB merges every
 * fragment under its 1M-row target). Compacting after K writes costs rows/K per write and leaves
 * K/2 extra fragments per write on average; with the per-fragment and per-row costs measured by the
 * benchmark's vector part (docs/benchmarks.md), the sum is smallest for K near sqrt(rows / 25), with
 * a floor so small tables are not rewritten every few writes. A BTREE index on `id` does not help:
 * in @lancedb/lancedb 0.29 it made update merges slower and covers only rows written before its
 * last rebuild; LanceDB's tracker also lists indexed merges that silently matched nothing.
 */
const MIN_WRITES_BETWEEN_COMPACTIONS = 8;
export const compactionInterval = (rows: number) =>
  Math.max(MIN_WRITES_BETWEEN_COMPACTIONS, Math.ceil(Math.sqrt(rows / 25)));

/**
 * Versions a compaction keeps. Each compaction writes a full copy of the table, and LanceDB's default
 * (7 days) would keep every copy of a week of nights (at 100k records one night of updates left 1.2 GB
 * of versions for a 120 MB table). Not zero: another process may be reading or merging into a version
 * committed moments ago (readers move on within READ_CONSISTENCY_SECONDS; a merge takes well under a
 * second), and removing its files would fail that call. Files of a write still in flight are never
 * removed (deleteUnverified stays off).
 */
const VERSION_RETENTION_MS = 2 * 60 * 1000;

const notYet = (error: Error): undefined => {
  if (!/^Table '.*' was not found/.test(error.message)) throw error;
};
const sqlString = (value: string) => `'${value.replaceAll("'", "''")}'`;

/** LanceDB on local disk (the embedded default). Callers batch their writes: one merge-insert per batch. */
export class LanceDbVectorStore implements VectorStore {
  private table: lancedb.Table | undefined;
  private readonly schema: Schema;
  /** Writes since the last compaction and the table's rows, counted from the first write on. */
  private writes: { sinceCompaction: number; rows: number } | undefined;
  private compacting: Promise<void> | undefined;
  private compactions = 0;
  private compactionError: string | undefined;

  private constructor(
    private readonly connection: lancedb.Connection,
    private readonly spec: TableSpec,
  ) {
    this.schema = tableSchema(spec.dimensions, spec.embeddingModel);
  }

  /** Opens the folder and, when the table already exists, checks that it was built by the same embedder. */
  static async open(options: LanceDbOptions): Promise<LanceDbVectorStore> {
    checkDimensions(options.dimensions);
    // Imported here, not at the top: loading LanceDB's native module is a cost only a process
    // opening a table should pay (most CLI commands never do).
    const { connect } = await import('@lancedb/lancedb');
    const connection = await connect(options.dir, {
      readConsistencyInterval: READ_CONSISTENCY_SECONDS,
    });
    const table = options.table ?? 'memories';
    const store = new LanceDbVectorStore(connection, {
      dir: options.dir,
      table,
      name: `vector table '${table}' in ${options.dir}`,
      clear: `delete or rename the vector folder ${options.dir}`,
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
    // A table another process is creating has its folder before its first version: not there yet.
    const opened = exists ? await this.connection.openTable(this.spec.table).catch(notYet) : undefined;
    if (!opened && !create) return undefined;
    // existOk: another process (worker and CLI share the folder) may create it between the two calls.
    const table =
      opened ?? (await this.connection.createEmptyTable(this.spec.table, this.schema, { existOk: true }));
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
    // One source row per id: LanceDB inserts duplicates of a new id and rejects duplicates of an existing one.
    const latest = latestById(records);
    const table = await this.tableFor(true);
    // Merge against what other processes wrote up to now, not this handle's view of up to a second
    // ago (READ_CONSISTENCY_SECONDS): an id another writer just inserted would be inserted again.
    await table.checkoutLatest();
    const writes = await this.writeCounts(table);
    const data = toArrowTable(latest, this.schema);
    const result = await table
      .mergeInsert('id')
      // A sync that read the memory before a newer write may land after the newer sync: it loses.
      .whenMatchedUpdateAll({ where: 'target.rev <= source.rev' })
      .whenNotMatchedInsertAll()
      .execute(data);
    writes.rows += result.numInsertedRows;
    await this.wrote(table, writes);
  }

  /**
   * Counts a write and compacts when the policy says so. Deletes count too: each one commits a
   * version with a deletion file that every later read and merge must apply until a compaction
   * rewrites the fragments without the deleted rows.
   */
  private async wrote(
    table: lancedb.Table,
    writes: { sinceCompaction: number; rows: number },
  ): Promise<void> {
    writes.sinceCompaction += 1;
    if (writes.sinceCompaction >= compactionInterval(writes.rows)) {
      // The records are written; a failed compaction (e.g. a conflict with another process's write)
      // must not make the caller write them again. The count stays up, so the next write retries.
      await this.compact(table).catch((error: unknown) => {
        this.compactionError = error instanceof Error ? error.message : String(error);
      });
    }
  }

  /**
   * Counted from the table's current layout at this handle's first write: a table fragmented before
   * (by older code, or by another process) counts each fragment as a write, so it is compacted soon.
   */
  private async writeCounts(table: lancedb.Table): Promise<{ sinceCompaction: number; rows: number }> {
    if (!this.writes) {
      const stats = await table.stats();
      this.writes ??= { sinceCompaction: stats.fragmentStats.numFragments, rows: stats.numRows };
    }
    return this.writes;
  }

  /** Compacts the table as committed now, one at a time per handle; drops versions past VERSION_RETENTION_MS. */
  private compact(table: lancedb.Table): Promise<void> {
    this.compacting ??= (async () => {
      try {
        // Fragments another process has just rewritten, compacted again from an older view, fail the commit.
        await table.checkoutLatest();
        await this.optimizeNow(table, {
          cleanupOlderThan: new Date(Date.now() - VERSION_RETENTION_MS),
        });
      } finally {
        this.compacting = undefined;
      }
    })();
    return this.compacting;
  }

  private async optimizeNow(
    table: lancedb.Table,
    options: { cleanupOlderThan: Date; deleteUnverified?: boolean },
  ): Promise<lancedb.OptimizeStats> {
    const stats = await table.optimize(options);
    this.compactions += 1;
    this.compactionError = undefined;
    if (this.writes) this.writes.sinceCompaction = 0;
    return stats;
  }

  /**
   * Erasure (docs/design.md invariant 8). A delete only adds a deletion file: the deleted rows stay in the
   * data files, where a compaction rewrites a fragment only once a tenth of it is deleted, and every
   * older version (kept VERSION_RETENTION_MS) still returns them to a `checkout`. So the rows are
   * rewritten into new files (an update that changes no value: one commit, the cost of a compaction)
   * and every version but the current one goes with the files only they use; files of writes that
   * never committed go too (deleteUnverified), which is safe only because the caller holds the
   * fleet's vector write lock. A reader still on an older version reads again (readThroughPurge).
   */
  async purgeDeleted(): Promise<DeletedPurge> {
    const table = await this.tableFor(false);
    if (!table) return { removed: 'nothing: the table was never written' };
    await this.compacting;
    await table.checkoutLatest();
    const rows = await table.countRows();
    if (rows > 0) await table.update({ valuesSql: { rev: 'rev' } });
    const { prune } = await this.optimizeNow(table, { cleanupOlderThan: new Date(), deleteUnverified: true });
    const kb = Math.round(prune.bytesRemoved / 1024);
    return {
      removed:
        `${prune.oldVersionsRemoved} older table versions (${kb} KB of files); ` +
        `the ${rows} records left rewritten into new files`,
    };
  }

  /** The stored records among these ids, in the order asked; unknown ids are left out. */
  async get(ids: string[]): Promise<VectorRecord[]> {
    const table = await this.tableFor(false);
    const wanted = [...new Set(ids)];
    if (!table || wanted.length === 0) return [];
    // As committed now, not this handle's view of up to READ_CONSISTENCY_SECONDS ago: the erasure
    // sweep compares these records with memories it has just read, and a record another worker
    // wrote before that read, seen at its older text, was deleted as outdated (a search hole).
    await table.checkoutLatest();
    const found = new Map<string, VectorRecord>();
    for (const chunk of chunks(wanted, GET_CHUNK)) {
      const where = `\`id\` IN (${chunk.map(sqlString).join(', ')})`;
      const rows = await readThroughPurge(table, () => table.query().where(where).toArray());
      for (const row of rows) {
        const record = toRecord(row);
        found.set(record.id, record);
      }
    }
    return wanted.flatMap((id) => found.get(id) ?? []);
  }

  async count(): Promise<number> {
    const table = await this.tableFor(false);
    return table ? readThroughPurge(table, () => table.countRows()) : 0;
  }

  /**
   * One delete (one commit) per GET_CHUNK ids: a sweep passes a page of ids at a time, so this is a
   * few writes per page, not one per memory.
   */
  async delete(ids: string[]): Promise<number> {
    const wanted = [...new Set(ids)];
    if (wanted.length === 0) return 0;
    return this.deleteWhere(
      chunks(wanted, GET_CHUNK).map((c) => `\`id\` IN (${c.map(sqlString).join(', ')})`),
    );
  }

  async deleteUnchanged(records: Pick<VectorRecord, 'id' | 'text'>[]): Promise<number> {
    const match = (r: Pick<VectorRecord, 'id' | 'text'>) =>
      `(\`id\` = ${sqlString(r.id)} AND \`text\` = ${sqlString(r.text)})`;
    return this.deleteWhere(chunks(records, GET_CHUNK).map((c) => c.map(match).join(' OR ')));
  }

  async deleteByUser(userId: string): Promise<number> {
    return this.deleteWhere([`\`userId\` = ${sqlString(userId)}`]);
  }

  private async deleteWhere(predicates: string[]): Promise<number> {
    const table = await this.tableFor(false);
    if (!table) return 0;
    await table.checkoutLatest();
    const writes = await this.writeCounts(table);
    let deleted = 0;
    for (const predicate of predicates) {
      // A delete that matches nothing still commits a version: skip it (the sweep asks about ids
      // most of which are usually gone already).
      if ((await table.countRows(predicate)) === 0) continue;
      const result = await table.delete(predicate);
      deleted += result.numDeletedRows;
      writes.rows -= result.numDeletedRows;
      await this.wrote(table, writes);
    }
    return deleted;
  }

  /**
   * LanceDB's queries have no ORDER BY: each page reads the ids after `after` (of one user) and sorts
   * them here. That is a scan of the id column per page, cheap next to the vectors for the single-host
   * tables LanceDB serves; a sweep over millions should ask for large pages.
   */
  async listIds(options?: ListIdsOptions): Promise<string[]> {
    const limit = listLimit(options);
    const table = await this.tableFor(false);
    if (!table) return [];
    const filters: string[] = [];
    if (options?.userId !== undefined) filters.push(`\`userId\` = ${sqlString(options.userId)}`);
    if (options?.after !== undefined) filters.push(`\`id\` > ${sqlString(options.after)}`);
    let query = table.query().select(['id']);
    if (filters.length > 0) query = query.where(filters.join(' AND '));
    const rows = await readThroughPurge(table, () => query.toArray());
    const ids = rows.map((row) => String(row.id));
    return ids.sort(compareIds).slice(0, limit);
  }

  /**
   * Nearest records first. L2 distance: the embedders return unit vectors, for which it ranks like
   * cosine without cosine's undefined result on an all-zero vector. The user filter runs before the
   * search (LanceDB's default prefilter), so a user still gets `limit` results when others are closer.
   */
  async search(vector: number[], options: { userId?: string; limit: number }): Promise<VectorRecord[]> {
    checkQueryVector(vector, this.spec);
    const table = await this.tableFor(false);
    if (!table || options.limit <= 0) return [];
    let query = table.vectorSearch(vector).distanceType('l2').limit(options.limit);
    if (options.userId !== undefined) query = query.where(`\`userId\` = ${sqlString(options.userId)}`);
    return (await readThroughPurge(table, () => query.toArray())).map(toRecord);
  }

  /**
   * Compacts now (writes also compact on their own, every compactionInterval writes) and drops
   * versions older than VERSION_RETENTION_MS; the CLI's reindex calls it after rewriting everything.
   */
  async optimize(): Promise<void> {
    const table = await this.tableFor(false);
    if (table) await this.compact(table);
  }

  /** The table's fragments, versions and indexes (for benchmarks and tests; undefined before the first write). */
  async stats(): Promise<LanceDbTableStats | undefined> {
    const table = await this.tableFor(false);
    if (!table) return undefined;
    const [stats, versions, indexes] = await Promise.all([
      table.stats(),
      table.listVersions(),
      table.listIndices(),
    ]);
    return {
      rows: stats.numRows,
      fragments: stats.fragmentStats.numFragments,
      smallFragments: stats.fragmentStats.numSmallFragments,
      versions: versions.length,
      indexes: indexes.map((index) => index.name),
      compactions: this.compactions,
      compactionError: this.compactionError,
    };
  }

  async close(): Promise<void> {
    if (this.table?.isOpen()) this.table.close();
    if (this.connection.isOpen()) this.connection.close();
  }
}
