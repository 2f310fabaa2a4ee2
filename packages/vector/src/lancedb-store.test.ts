import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { toArrowTable } from './arrow-batch.js';
import { DIM, describeVectorStoreConformance, MODEL, record, unit } from './conformance.js';
import { createVectorStore } from './index.js';
import { compactionInterval, LanceDbVectorStore } from './lancedb-store.js';
import { tableSchema } from './table-schema.js';

let dir: string;
let store: LanceDbVectorStore;

/** The files under a folder (every version's data, deletion files, manifests) holding this text. */
async function filesHolding(folder: string, text: string): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true });
  const files = entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
  const found: string[] = [];
  for (const file of files) if ((await readFile(file)).includes(Buffer.from(text))) found.push(file);
  return found;
}

/** Rows of a user in each of these versions a `checkout` still reaches (a version gone reaches none). */
async function rowsInVersions(table: lancedb.Table, versions: number[], userId: string): Promise<number> {
  let rows = 0;
  for (const version of versions) {
    const reached = await table.checkout(version).then(
      () => true,
      () => false,
    );
    if (reached) rows += await table.countRows(`\`userId\` = '${userId}'`);
  }
  await table.checkoutLatest();
  return rows;
}

const open = (options: { dimensions?: number; embeddingModel?: string } = {}) =>
  LanceDbVectorStore.open({ dir, dimensions: DIM, embeddingModel: MODEL, ...options });

describeVectorStoreConformance('LanceDbVectorStore', {
  newPlace: () => mkdtemp(join(tmpdir(), 'memfade-lance-')),
  open: (place, options) => LanceDbVectorStore.open({ dir: place, ...options }),
  removePlace: (place) => rm(place, { recursive: true, force: true }),
  concurrentInserts: false,
  search: true,
});

describe('LanceDbVectorStore', () => {
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'memfade-lance-'));
    store = await open();
  });
  afterEach(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('writes a batch of 500 and reads more ids than one filter chunk, in the order asked', async () => {
    await store.upsert(Array.from({ length: 500 }, (_, i) => record(`m${i}`, unit(i % DIM))));
    expect(await store.count()).toBe(500);
    const asked = [...Array.from({ length: 100 }, (_, i) => `missing${i}`), 'm499', 'm0'];
    asked.push(
      ...Array.from({ length: 500 }, (_, i) => `m${i}`).filter((id) => id !== 'm0' && id !== 'm499'),
    );
    const got = await store.get(asked);
    expect(got).toHaveLength(500);
    expect(got.slice(0, 3).map((r) => r.id)).toEqual(['m499', 'm0', 'm1']);
    expect(await store.get([])).toEqual([]);
  });

  it('handles ids with quotes as data, not SQL', async () => {
    const tricky = ["it's", "o''clock", "x' OR '1'='1"];
    await store.upsert([...tricky.map((id, i) => record(id, unit(i))), record('plain', unit(5))]);
    await store.upsert([record("it's", unit(6), { text: 'updated' })]);
    expect(await store.count()).toBe(4);
    expect((await store.get(tricky)).map((r) => r.id)).toEqual(tricky);
    expect((await store.get(["it's"]))[0]?.text).toBe('updated');
    expect(await store.get(["nothing' OR '1'='1"])).toEqual([]);
  });

  it('creates the table only on the first write; reads before that find nothing', async () => {
    expect(await store.count()).toBe(0);
    expect(await store.get(['m1'])).toEqual([]);
    expect(await store.search(unit(0), { limit: 3 })).toEqual([]);
    await store.upsert([]);
    expect(await readdir(dir)).not.toContain('memories.lance');
    await store.upsert([record('m1', unit(0))]);
    expect(await readdir(dir)).toContain('memories.lance');
    expect(await store.count()).toBe(1);
  });

  it('keeps data across reopening and compaction', async () => {
    for (let i = 0; i < 5; i++) await store.upsert([record(`m${i}`, unit(i)), record('shared', unit(7))]);
    await store.optimize();
    await store.close();
    store = await open();
    expect(await store.count()).toBe(6);
    expect((await store.get(['m3', 'shared'])).map((r) => r.vector)).toEqual([unit(3), unit(7)]);
  });

  it('compacts on its own every few writes, and later writes still replace by id and honour rev', async () => {
    const every = compactionInterval(0);
    const writes = every * 2 + 3;
    for (let i = 0; i < writes; i++) await store.upsert([record(`m${i}`, unit(i % DIM))]);
    const stats = await store.stats();
    // Without compaction every write leaves its own fragment.
    expect(stats).toMatchObject({ rows: writes, compactions: 2, compactionError: undefined });
    expect(stats?.fragments).toBeLessThan(every);
    expect((await store.get(['m0', `m${writes - 1}`])).map((r) => r.id)).toEqual(['m0', `m${writes - 1}`]);

    // Merges into compacted fragments: the newer rev replaces, the older one is ignored, no duplicates.
    await store.upsert([record('m0', unit(5), { stage: 'v2', rev: 3 }), record('new', unit(1))]);
    await store.upsert([record('m0', unit(6), { stage: 'v1', rev: 2 })]);
    expect(await store.count()).toBe(writes + 1);
    expect(await store.get(['m0'])).toMatchObject([{ stage: 'v2', rev: 3, vector: unit(5) }]);
  });

  it('compacts a table that was fragmented before this handle opened it', async () => {
    // As left by older code or by another process: one fragment per write, never compacted.
    const schema = tableSchema(DIM, MODEL);
    const connection = await lancedb.connect(dir);
    const table = await connection.createEmptyTable('memories', schema);
    const fragments = compactionInterval(0) + 4;
    for (let i = 0; i < fragments; i++)
      await table.add(toArrowTable([record(`old${i}`, unit(i % DIM))], schema));
    table.close();
    connection.close();

    await store.close();
    store = await open();
    expect(await store.stats()).toMatchObject({ fragments, compactions: 0 });
    await store.upsert([record('old0', unit(7), { rev: 2 })]);
    expect(await store.stats()).toMatchObject({ fragments: 1, compactions: 1, rows: fragments });
    expect(await store.get(['old0', `old${fragments - 1}`])).toMatchObject([
      { rev: 2, vector: unit(7) },
      { rev: 1 },
    ]);
  });

  it('loses nothing when two handles (as two worker processes) write and compact the same table', async () => {
    // The table and the shared ids exist first: two handles creating the table at once, or inserting the
    // same new id at once, are races of LanceDB itself that compaction neither causes nor fixes.
    await store.upsert([0, 1, 2, 3].map((i) => record(`shared${i}`, unit(0), { rev: 0 })));
    const other = await open();
    const writes = compactionInterval(0) * 3;
    // Each writes its own ids and updates the shared ones, compacting every few writes; their
    // compactions and merges conflict, and LanceDB must retry or give up without losing a write.
    const run = (who: LanceDbVectorStore, name: string, rev: number) =>
      (async () => {
        for (let i = 0; i < writes; i++) {
          await who.upsert([
            record(`${name}${i}`, unit(i % DIM), { rev }),
            record(`shared${i % 4}`, unit(rev), { rev }),
          ]);
        }
      })();
    try {
      await Promise.all([run(store, 'a', 1), run(other, 'b', 2)]);
    } finally {
      await other.close();
    }
    // A fresh handle: a long-lived one may see the other's last writes only a second later.
    await store.close();
    store = await open();
    expect(await store.count()).toBe(writes * 2 + 4);
    expect((await store.get(['shared0', 'shared1', 'shared2', 'shared3'])).map((r) => r.rev)).toEqual([
      2, 2, 2, 2,
    ]);
    expect((await store.get(['a0', `b${writes - 1}`])).map((r) => r.id)).toEqual(['a0', `b${writes - 1}`]);
  });

  it('opens while another process creates the table (its folder there, no version yet): nothing to read, the first write makes it', async () => {
    // simulate --seed 14180: a worker started as another created the table exited 2 ("Table 'memories'
    // was not found ... _versions").
    await store.close();
    await rm(dir, { recursive: true, force: true });
    await mkdir(join(dir, 'memories.lance'), { recursive: true });
    store = await open();
    expect(await store.count()).toBe(0);
    expect(await store.get(['a'])).toEqual([]);
    await store.upsert([record('a', unit(1))]);
    expect(await store.get(['a'])).toMatchObject([{ id: 'a', vector: unit(1) }]);
  });

  it("compacts the table as committed now: another handle's compaction of a moment ago is no conflict", async () => {
    // As `memfade reindex --prune` after its sweep, with a worker's drain (a write, then its compaction)
    // between (simulate --seed 14088: the CLI's compaction, planned on fragments the worker had just
    // rewritten, failed with LanceDB's "Rewrite ... preempted by concurrent transaction", exit 2).
    for (let i = 0; i < 3; i++) await store.upsert([record(`f${i}`, unit(i % DIM))]);
    const other = await open();
    try {
      // The other handle has just looked at the table: left to itself it would not look again for a second.
      expect(await other.count()).toBe(3);
      await store.optimize();
      await other.optimize();
      expect(await other.stats()).toMatchObject({ rows: 3, fragments: 1, compactionError: undefined });
    } finally {
      await other.close();
    }
  });

  it("merges against another handle's write of a moment ago: a new id it inserted is updated, not inserted again", async () => {
    const other = await open();
    try {
      // Both handles have looked at the table just now, so neither re-reads it on its own for a second.
      await store.upsert([record('seed', unit(0))]);
      expect(await other.count()).toBe(1);
      await store.upsert([record('fresh', unit(1), { stage: 'v1', rev: 1 })]);
      await other.upsert([record('fresh', unit(2), { stage: 'v2', rev: 2 })]);
    } finally {
      await other.close();
    }
    expect(await store.count()).toBe(2);
    expect(await store.get(['fresh'])).toMatchObject([{ stage: 'v2', rev: 2, vector: unit(2) }]);
  });

  it("reads another handle's write of a moment ago: get returns what is committed now", async () => {
    const other = await open();
    try {
      await store.upsert([record('seen', unit(0))]);
      // The other handle has just looked at the table: left to itself it would not look again for a second.
      expect(await other.get(['seen'])).toMatchObject([{ rev: 1 }]);
      await store.upsert([record('seen', unit(1), { stage: 'v2', rev: 2 }), record('new', unit(2))]);
      expect((await other.get(['seen', 'new'])).map((r) => [r.id, r.rev])).toEqual([
        ['seen', 2],
        ['new', 1],
      ]);
    } finally {
      await other.close();
    }
  });

  it("reads through another handle's purge: a read on a version whose files it removed reads the current one", async () => {
    const reader = await open();
    try {
      await store.upsert(Array.from({ length: 20 }, (_, i) => record(`m${i}`, unit(i % DIM))));
      // The reader looks now, and would not look again for a second (the connection's read consistency).
      expect(await reader.count()).toBe(20);
      expect(await store.delete(['m1'])).toBe(1);
      await store.purgeDeleted();
      // Every file of the version the reader holds is gone: each read still answers, from what is committed.
      expect(await reader.listIds()).toHaveLength(19);
      expect(await reader.search(unit(0), { limit: 3 })).toHaveLength(3);
      expect(await reader.count()).toBe(19);
      expect(await reader.get(['m1', 'm2'])).toMatchObject([{ id: 'm2' }]);
    } finally {
      await reader.close();
    }
  });

  it('deletes as few writes as it can: none for ids already gone, and deletes count toward compaction', async () => {
    await store.upsert(
      Array.from({ length: 20 }, (_, i) => record(`m${i}`, unit(i % DIM), { userId: `u${i % 2}` })),
    );
    const before = await store.stats();
    expect(await store.delete(['gone', 'also-gone'])).toBe(0);
    expect(await store.deleteByUser('nobody')).toBe(0);
    expect((await store.stats())?.versions).toBe(before?.versions);

    const every = compactionInterval(0);
    for (let i = 0; i < every; i++) expect(await store.delete([`m${i}`])).toBe(1);
    const stats = await store.stats();
    // Deletion files are folded into rewritten fragments by the compaction the deletes triggered.
    expect(stats).toMatchObject({ rows: 20 - every, compactions: 1 });
    expect(await store.listIds({ userId: 'u1' })).toEqual(
      Array.from({ length: 20 }, (_, i) => i)
        .filter((i) => i >= every && i % 2 === 1)
        .map((i) => `m${i}`)
        .sort(),
    );
  });

  it("purgeDeleted leaves no copy of a user's deleted records: in no version a checkout reaches, in no file of the folder", async () => {
    const secret = 'SECRET-of-D';
    await store.upsert(
      Array.from({ length: 40 }, (_, i) => record(`k${i}`, unit(i % DIM), { userId: 'keep' })),
    );
    await store.upsert(
      [0, 1].map((i) => record(`d${i}`, unit(i), { userId: 'D', text: `${secret} V1 ${i}` })),
    );
    // One fragment holding both users, as the store keeps it; then a newer stage of one of D's memories.
    await store.optimize();
    await store.upsert([record('d0', unit(3), { userId: 'D', text: `${secret} V2 豆豆`, rev: 2 })]);
    expect(await store.deleteByUser('D')).toBe(2);
    const connection = await lancedb.connect(dir);
    const table = await connection.openTable('memories');
    try {
      const versions = (await table.listVersions()).map((v) => v.version);
      // What the purge is for: the delete hid D's rows; older versions and the files still hold them.
      expect(await rowsInVersions(table, versions, 'D')).toBeGreaterThan(0);
      expect(await filesHolding(dir, secret)).not.toEqual([]);

      expect((await store.purgeDeleted()).removed).toMatch(
        /^[1-9]\d* older table versions \(\d+ KB of files\); the 40 records left rewritten/,
      );
      expect(await rowsInVersions(table, versions, 'D')).toBe(0);
      expect(await filesHolding(dir, secret)).toEqual([]);
      expect(await filesHolding(dir, '豆豆')).toEqual([]);
    } finally {
      table.close();
      connection.close();
    }
    // The others' records are all there, and the store works on.
    expect(await store.count()).toBe(40);
    expect(await store.get(['k0', 'k39'])).toMatchObject([{ userId: 'keep' }, { userId: 'keep' }]);
    await store.upsert([record('k0', unit(5), { rev: 2 })]);
    expect(await store.get(['k0'])).toMatchObject([{ rev: 2, vector: unit(5) }]);
  });

  it('is what the factory builds for kind lancedb', async () => {
    await store.close();
    const made = await createVectorStore({ kind: 'lancedb', dir, dimensions: DIM, embeddingModel: MODEL });
    try {
      await made.upsert([record('m1', unit(1))]);
      await made.optimize();
      expect(made).toBeInstanceOf(LanceDbVectorStore);
      expect(await made.count()).toBe(1);
    } finally {
      await made.close();
    }
  });
});
