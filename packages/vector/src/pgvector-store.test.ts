import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DIM, describeVectorStoreConformance, MODEL, record, unit } from './conformance.js';
import { createVectorStore } from './index.js';
import { PgVectorStore } from './pgvector-store.js';

// PostgreSQL with pgvector: PGlite over the wire from the test fixtures, or PGVECTOR_URL.
const url = inject('pgvectorUrl');
const newTable = () => `t_${randomBytes(6).toString('hex')}`;
let admin: pg.Pool;

beforeAll(() => {
  admin = new pg.Pool({ connectionString: url, max: 1 });
});
afterAll(async () => {
  await admin.end();
});

describeVectorStoreConformance('PgVectorStore', {
  newPlace: newTable,
  open: (table, options) => PgVectorStore.open({ url, table, ...options }),
  removePlace: async (table) => {
    await admin.query(`DROP TABLE IF EXISTS ${table}`);
  },
  concurrentInserts: true,
  search: true,
});

describe('PgVectorStore', () => {
  it('creates the table with an HNSW cosine index and a user index, and records the embedding model', async () => {
    const table = newTable();
    const store = await PgVectorStore.open({ url, table, dimensions: DIM, embeddingModel: MODEL });
    try {
      const indexes = await admin.query('SELECT indexname, indexdef FROM pg_indexes WHERE tablename = $1', [
        table,
      ]);
      const defs = indexes.rows.map((r) => r.indexdef as string);
      expect(defs.some((d) => /USING hnsw \(embedding vector_cosine_ops\)/.test(d))).toBe(true);
      expect(defs.some((d) => /\(user_id, id\)/.test(d))).toBe(true);
      const type = await admin.query(
        `SELECT format_type(atttypid, atttypmod) AS type FROM pg_attribute WHERE attrelid = $1::regclass AND attname = 'embedding'`,
        [table],
      );
      expect(type.rows[0].type).toBe(`vector(${DIM})`);
    } finally {
      await store.close();
      await admin.query(`DROP TABLE ${table}`);
    }
  });

  it('refuses a table made elsewhere that lacks columns, or says nothing of its model', async () => {
    const table = newTable();
    try {
      await admin.query(`CREATE TABLE ${table} (id text PRIMARY KEY, embedding vector(${DIM}))`);
      await expect(
        PgVectorStore.open({ url, table, dimensions: DIM, embeddingModel: MODEL }),
      ).rejects.toThrow(
        /PostgreSQL vector table '.*' lacks the columns user_id, .*rev, .*DROP TABLE t_.*memfade reindex --all/,
      );
      await admin.query(
        `ALTER TABLE ${table} ADD user_id text, ADD partner_id text, ADD stage text, ADD text text,
         ADD embedding_model text, ADD updated_at timestamptz, ADD rev bigint`,
      );
      await expect(
        PgVectorStore.open({ url, table, dimensions: DIM, embeddingModel: MODEL }),
      ).rejects.toThrow(/holds 8-dimension vectors from embedding model 'unknown'/);
    } finally {
      await admin.query(`DROP TABLE IF EXISTS ${table}`);
    }
  });

  it('two replicas opening a new table at once both succeed and share it', async () => {
    const table = newTable();
    const open = () => PgVectorStore.open({ url, table, dimensions: DIM, embeddingModel: MODEL });
    const [a, b] = await Promise.all([open(), open()]);
    try {
      await a.upsert([record('m1', unit(1))]);
      expect(await b.get(['m1'])).toMatchObject([{ id: 'm1' }]);
    } finally {
      await Promise.all([a.close(), b.close()]);
      await admin.query(`DROP TABLE ${table}`);
    }
  });

  it('purgeDeleted vacuums the dead rows a DELETE leaves in the pages now, not whenever autovacuum comes', async () => {
    const table = newTable();
    const store = await PgVectorStore.open({ url, table, dimensions: DIM, embeddingModel: MODEL });
    const size = async () =>
      Number((await admin.query('SELECT pg_relation_size($1::regclass) AS n', [table])).rows[0].n);
    try {
      await store.upsert(
        Array.from({ length: 300 }, (_, i) =>
          record(`d${i}`, unit(i % DIM), { userId: 'D', text: 'x'.repeat(200) }),
        ),
      );
      expect(await store.deleteByUser('D')).toBe(300);
      // The rows are dead, not gone: the table's pages still hold them.
      const before = await size();
      expect(before).toBeGreaterThan(0);
      const purge = await store.purgeDeleted();
      expect(purge).toMatchObject({ removed: expect.stringMatching(/dead rows .*\(VACUUM\)$/) });
      expect(purge.pending).toBeUndefined();
      expect(purge.kept).toMatch(/WAL/);
      // VACUUM removed them, and with every row dead it gave the emptied pages back.
      expect(await size()).toBe(0);
    } finally {
      await store.close();
      await admin.query(`DROP TABLE ${table}`);
    }
  });

  it('refuses a table name that is not a plain identifier', async () => {
    await expect(
      PgVectorStore.open({ url, table: 'x; DROP TABLE y', dimensions: DIM, embeddingModel: MODEL }),
    ).rejects.toThrow(/lowercase identifier/);
  });

  it('is what the factory builds for kind pgvector', async () => {
    const table = newTable();
    const made = await createVectorStore({
      kind: 'pgvector',
      url,
      table,
      dimensions: DIM,
      embeddingModel: MODEL,
    });
    try {
      expect(made).toBeInstanceOf(PgVectorStore);
      await made.upsert([record('m1', unit(1))]);
      await made.optimize();
      expect(await made.count()).toBe(1);
    } finally {
      await made.close();
      await admin.query(`DROP TABLE ${table}`);
    }
  });
});
