import type { DeletedPurge, ListIdsOptions, Stage, VectorRecord, VectorStore } from '@memfade/core';
import pg from 'pg';
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

export interface PgVectorOptions {
  /** PostgreSQL connection string (`postgresql://user:password@host:5432/db`). */
  url: string;
  /** Table name, an unquoted identifier in the connection's search_path (default 'memfade_vectors'). */
  table?: string;
  dimensions: number;
  embeddingModel: string;
  /** Connections in the pool (default 4: writes are batched, a worker needs few). */
  poolSize?: number;
}

/** Rows per INSERT: 9 parameters each, far below PostgreSQL's 65535 per statement. */
const UPSERT_CHUNK = 500;
/** Ids per DELETE ... = ANY($1). */
const ID_CHUNK = 1000;
const COLUMNS = [
  'id',
  'user_id',
  'partner_id',
  'stage',
  'text',
  'embedding',
  'embedding_model',
  'updated_at',
  'rev',
] as const;
/** The table comment's key naming the model that produced the vectors (dimensions alone can collide). */
const MODEL_KEY = 'memfade.embeddingModel';

/** pgvector's text form, which it parses back exactly (shortest round-trip decimals). */
const vectorLiteral = (vector: number[]) => `[${vector.join(',')}]`;

/**
 * PostgreSQL with pgvector: a store every worker replica reaches, with no shared folder and no lock
 * between replicas. Each row's write is one `INSERT ... ON CONFLICT (id) DO UPDATE ... WHERE rev <=`,
 * which PostgreSQL applies atomically per row (the conflicting row is locked, the rev compared and
 * the update made under that lock), so two replicas writing the same memory end with the higher rev
 * whatever the order, and two inserting the same new id end with one row.
 */
export class PgVectorStore implements VectorStore {
  private readonly table: string;

  private constructor(
    private readonly pool: pg.Pool,
    private readonly spec: StoreSpec & { table: string },
  ) {
    this.table = pg.escapeIdentifier(spec.table);
  }

  /** Connects, creates the table and its indexes when missing, and checks an existing one was built by the same embedder. */
  static async open(options: PgVectorOptions): Promise<PgVectorStore> {
    checkDimensions(options.dimensions);
    const table = options.table ?? 'memfade_vectors';
    // Index names are derived from it and it goes into messages: keep it a plain identifier.
    if (!/^[a-z_][a-z0-9_]{0,40}$/.test(table)) {
      throw new Error(`pgvector table name must be a lowercase identifier (a-z, 0-9, _), got '${table}'`);
    }
    const pool = new pg.Pool({ connectionString: options.url, max: options.poolSize ?? 4 });
    // An idle connection the server dropped is discarded by the pool; the next query opens another.
    // Without a listener its 'error' event would end the process.
    pool.on('error', () => {});
    const store = new PgVectorStore(pool, {
      table,
      name: `PostgreSQL vector table '${table}'`,
      clear: `drop the table (DROP TABLE ${table})`,
      dimensions: options.dimensions,
      embeddingModel: options.embeddingModel,
    });
    try {
      await store.setUp();
    } catch (error) {
      await pool.end();
      throw error;
    }
    return store;
  }

  /**
   * One transaction under an advisory lock: two replicas starting at once would otherwise race on
   * CREATE TABLE IF NOT EXISTS (PostgreSQL can fail one with a duplicate key on its catalog). This is
   * the only lock; writes need none.
   */
  private async setUp(): Promise<void> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [
        `memfade vectors ${this.spec.table}`,
      ]);
      await client.query('CREATE EXTENSION IF NOT EXISTS vector');
      const exists = await client.query('SELECT to_regclass($1) IS NOT NULL AS exists', [this.table]);
      if (exists.rows[0].exists) {
        await this.checkExisting(client);
      } else {
        await client.query(`
          CREATE TABLE ${this.table} (
            id text COLLATE "C" PRIMARY KEY,
            user_id text NOT NULL,
            partner_id text NOT NULL,
            stage text NOT NULL,
            text text NOT NULL,
            embedding vector(${this.spec.dimensions}) NOT NULL,
            embedding_model text NOT NULL,
            updated_at timestamptz NOT NULL,
            rev bigint NOT NULL
          )`);
        const comment = JSON.stringify({ [MODEL_KEY]: this.spec.embeddingModel });
        await client.query(`COMMENT ON TABLE ${this.table} IS ${pg.escapeLiteral(comment)}`);
      }
      // Also on an existing table: a table made by hand, or one whose index build was interrupted.
      await client.query(
        `CREATE INDEX IF NOT EXISTS ${pg.escapeIdentifier(`${this.spec.table}_embedding_idx`)} ` +
          `ON ${this.table} USING hnsw (embedding vector_cosine_ops)`,
      );
      // Serves deleteByUser and listIds({ userId }) in id order.
      await client.query(
        `CREATE INDEX IF NOT EXISTS ${pg.escapeIdentifier(`${this.spec.table}_user_idx`)} ` +
          `ON ${this.table} (user_id, id)`,
      );
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  }

  private async checkExisting(client: pg.PoolClient): Promise<void> {
    const columns = await client.query<{ name: string; typmod: number }>(
      `SELECT attname AS name, atttypmod AS typmod FROM pg_attribute
       WHERE attrelid = to_regclass($1) AND attnum > 0 AND NOT attisdropped`,
      [this.table],
    );
    const missing = COLUMNS.filter((name) => !columns.rows.some((c) => c.name === name));
    if (missing.length > 0) return checkLayout({ missing }, this.spec);
    // pgvector keeps the dimension in the column's type modifier (-1 when the column has none).
    const typmod = columns.rows.find((c) => c.name === 'embedding')?.typmod;
    const comment = await client.query<{ comment: string | null }>(
      `SELECT obj_description(to_regclass($1), 'pg_class') AS comment`,
      [this.table],
    );
    checkLayout(
      {
        dimensions: typmod !== undefined && typmod > 0 ? typmod : undefined,
        embeddingModel: modelFromComment(comment.rows[0]?.comment ?? null),
      },
      this.spec,
    );
  }

  async upsert(records: VectorRecord[]): Promise<void> {
    if (records.length === 0) return;
    for (const record of records) checkRecord(record, this.spec);
    const set = COLUMNS.filter((c) => c !== 'id')
      .map((c) => `${c} = EXCLUDED.${c}`)
      .join(', ');
    // Chunks are independent statements: a failure part way leaves some rows written, and the caller's
    // retry of the whole batch rewrites them as no-ops (same rev) or replacements.
    for (const chunk of chunks(latestById(records), UPSERT_CHUNK)) {
      const values: unknown[] = [];
      const rows = chunk.map((r) => {
        const at = values.length;
        values.push(
          r.id,
          r.userId,
          r.partnerId,
          r.stage,
          r.text,
          vectorLiteral(r.vector),
          r.embeddingModel,
          r.updatedAt,
          r.rev,
        );
        return `($${at + 1}, $${at + 2}, $${at + 3}, $${at + 4}, $${at + 5}, $${at + 6}::vector, $${at + 7}, $${at + 8}, $${at + 9})`;
      });
      await this.pool.query(
        `INSERT INTO ${this.table} AS target (${COLUMNS.join(', ')}) VALUES ${rows.join(', ')}
         ON CONFLICT (id) DO UPDATE SET ${set} WHERE target.rev <= EXCLUDED.rev`,
        values,
      );
    }
  }

  /** The stored records among these ids, in the order asked; unknown ids are left out. */
  async get(ids: string[]): Promise<VectorRecord[]> {
    const wanted = [...new Set(ids)];
    const found = new Map<string, VectorRecord>();
    for (const chunk of chunks(wanted, ID_CHUNK)) {
      const result = await this.pool.query(
        `SELECT ${COLUMNS.join(', ')} FROM ${this.table} WHERE id = ANY($1::text[])`,
        [chunk],
      );
      for (const row of result.rows) found.set(row.id, toRecord(row));
    }
    return wanted.flatMap((id) => found.get(id) ?? []);
  }

  async count(): Promise<number> {
    const result = await this.pool.query(`SELECT count(*) AS n FROM ${this.table}`);
    return Number(result.rows[0].n);
  }

  /**
   * Nearest by cosine distance first. When the planner uses the HNSW index (large tables; small ones
   * and selective user filters get an exact scan, as on the test server), the index alone returns at
   * most `hnsw.ef_search` (40) candidates before the user filter and the limit apply, so a user whose
   * records are far from the query would get fewer than `limit`; pgvector 0.8's iterative scan keeps
   * searching until the limit is met, in exact distance order (pgvector 0.8 or later is required).
   */
  async search(vector: number[], options: { userId?: string; limit: number }): Promise<VectorRecord[]> {
    checkQueryVector(vector, this.spec);
    if (options.limit <= 0) return [];
    const values: unknown[] = [vectorLiteral(vector), options.limit];
    let where = '';
    if (options.userId !== undefined) {
      values.push(options.userId);
      where = 'WHERE user_id = $3';
    }
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      // SET LOCAL: the setting ends with this transaction, so the pooled connection is left as it was.
      await client.query('SET LOCAL hnsw.iterative_scan = strict_order');
      const result = await client.query(
        `SELECT ${COLUMNS.join(', ')} FROM ${this.table} ${where}
         ORDER BY embedding <=> $1::vector LIMIT $2`,
        values,
      );
      await client.query('COMMIT');
      return result.rows.map(toRecord);
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  }

  async delete(ids: string[]): Promise<number> {
    let deleted = 0;
    for (const chunk of chunks([...new Set(ids)], ID_CHUNK)) {
      const result = await this.pool.query(`DELETE FROM ${this.table} WHERE id = ANY($1::text[])`, [chunk]);
      deleted += result.rowCount ?? 0;
    }
    return deleted;
  }

  async deleteUnchanged(records: Pick<VectorRecord, 'id' | 'text'>[]): Promise<number> {
    let deleted = 0;
    for (const chunk of chunks(records, ID_CHUNK)) {
      const result = await this.pool.query(
        `DELETE FROM ${this.table} WHERE (id, text) IN (SELECT * FROM unnest($1::text[], $2::text[]))`,
        [chunk.map((r) => r.id), chunk.map((r) => r.text)],
      );
      deleted += result.rowCount ?? 0;
    }
    return deleted;
  }

  async deleteByUser(userId: string): Promise<number> {
    const result = await this.pool.query(`DELETE FROM ${this.table} WHERE user_id = $1`, [userId]);
    return result.rowCount ?? 0;
  }

  /** Walks the primary key (or the user index), whose "C" collation is the binary order the port promises. */
  async listIds(options?: ListIdsOptions): Promise<string[]> {
    const values: unknown[] = [listLimit(options)];
    const filters: string[] = [];
    if (options?.userId !== undefined) {
      values.push(options.userId);
      filters.push(`user_id = $${values.length}`);
    }
    if (options?.after !== undefined) {
      values.push(options.after);
      filters.push(`id > $${values.length}`);
    }
    const where = filters.length > 0 ? `WHERE ${filters.join(' AND ')}` : '';
    const result = await this.pool.query<{ id: string }>(
      `SELECT id FROM ${this.table} ${where} ORDER BY id LIMIT $1`,
      values,
    );
    return result.rows.map((row) => row.id);
  }

  /** Nothing to compact: PostgreSQL's autovacuum reclaims updated and deleted rows on its own. */
  async optimize(): Promise<void> {}

  /**
   * A DELETE leaves the rows in the table's pages (dead tuples, until a vacuum) and their vectors in
   * the HNSW index; VACUUM removes them from both now instead of whenever autovacuum comes. It locks
   * nothing readers or writers need (no VACUUM FULL, which would block the table while it copies
   * it); on a large HNSW index it can take minutes. It needs the table's owner (memfade created it):
   * without that right, autovacuum does it later and `pending` says why it did not happen now.
   */
  async purgeDeleted(): Promise<DeletedPurge> {
    const kept =
      "PostgreSQL's WAL (and its archive), replicas and backups keep the deleted rows for their " +
      'retention; the space VACUUM frees is reused, not zeroed';
    try {
      await this.pool.query(`VACUUM ${this.table}`);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      return {
        removed: 'nothing',
        pending: `VACUUM failed (${reason}): autovacuum removes the dead rows later`,
        kept,
      };
    }
    return { removed: 'the dead rows from the table, its TOAST table and its indexes (VACUUM)', kept };
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

function modelFromComment(comment: string | null): string | undefined {
  if (!comment) return undefined;
  try {
    const parsed: unknown = JSON.parse(comment);
    const model = (parsed as Record<string, unknown>)?.[MODEL_KEY];
    return typeof model === 'string' ? model : undefined;
  } catch {
    return undefined;
  }
}

function toRecord(row: Record<string, unknown>): VectorRecord {
  return {
    id: String(row.id),
    userId: String(row.user_id),
    partnerId: String(row.partner_id),
    stage: row.stage as Stage,
    text: String(row.text),
    // pgvector's text output is a JSON array of numbers.
    vector: JSON.parse(String(row.embedding)) as number[],
    embeddingModel: String(row.embedding_model),
    updatedAt: row.updated_at as Date,
    // bigint arrives as a string (it may exceed 2^53 in general; a memory's rev does not).
    rev: Number(row.rev),
  };
}
