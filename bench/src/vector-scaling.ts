/**
 * Does each vector store cost the same per memory at 50k records as at 1k? The nightly run writes
 * every transition through `upsert` in batches; if a write scans the whole table to find its ids,
 * each batch costs more as the table grows and the night gets slower than linear. This runs each
 * real store (LanceDB on disk, pgvector, MongoDB) without Redis, the queue or the embedder, so only
 * the store's cost shows (and the server's, for pgvector and MongoDB: see docs/benchmarks.md).
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { VectorRecord } from '@memfade/core';
import {
  LanceDbVectorStore,
  type MaintainedVectorStore,
  type MongoVectorOptions,
  MongoVectorStore,
  PgVectorStore,
} from '@memfade/vector';
import pg from 'pg';

/** The driver's database handle, as the MongoDB store takes it. */
type Db = Extract<MongoVectorOptions['db'], { databaseName: string }>;

export const VECTOR_BENCH_STORES = ['lancedb', 'pgvector', 'mongodb'] as const;
export type VectorBenchStore = (typeof VECTOR_BENCH_STORES)[number];

/** Where the server stores are: a PostgreSQL with pgvector, and the benchmark's MongoDB database. */
export interface VectorBenchServers {
  pgvectorUrl?: string;
  mongoDb?: Db;
}

export interface VectorPhaseResult {
  records: number;
  batches: number;
  seconds: number;
  msPerRecord: number;
  /** ms per record over the last 10% of batches: a cost that grows with the table shows here first. */
  lastTenthMsPerRecord: number;
  /** LanceDB only: the table's layout after the phase (before any compaction). */
  fragments?: number;
  versions?: number;
  diskMb?: number;
}

export interface VectorScalingResult {
  store: VectorBenchStore;
  size: number;
  batchSize: number;
  dimensions: number;
  /** First night: every id is new. */
  insert: VectorPhaseResult;
  /** A later night: the same ids again, with a higher rev and a new stage and text. */
  update: VectorPhaseResult;
  /** LanceDB only: compactions the store ran on its own during both phases (their time is in the phases' times). */
  compactions?: number;
  /** LanceDB only: the store's optimize() after the update phase, and the layout it leaves. */
  optimize?: { seconds: number; fragments: number; versions: number; diskMb: number };
  indexes?: string[];
}

const MODEL = 'bench-seeded-vectors';
const USERS = 500;

/** mulberry32: a tiny seeded generator, so every run writes the same vectors. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A unit vector like the embedders return (the store ranks by L2, which assumes unit length). */
function unitVector(seed: number, dimensions: number): number[] {
  const next = seeded(seed);
  const vector = Array.from({ length: dimensions }, () => next() * 2 - 1);
  const norm = Math.hypot(...vector) || 1;
  return vector.map((x) => x / norm);
}

function record(i: number, night: 1 | 2, dimensions: number): VectorRecord {
  const stage = night === 1 ? 'v1' : 'v2';
  return {
    id: `vs-${i}`,
    userId: `u${i % USERS}`,
    partnerId: 'default',
    stage,
    // About the length of a V1 summary; the text column is part of what every rewrite copies.
    text: `memory ${i} at ${stage}: a walk by the lake, a small dog, and a long talk about the weekend plans.`,
    vector: unitVector(i * 2 + night, dimensions),
    embeddingModel: MODEL,
    updatedAt: new Date(Date.UTC(2026, 0, night)),
    rev: night,
  };
}

/** Bytes under a folder: what a table of this size costs on disk, old versions included. */
async function diskMb(dir: string): Promise<number> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  let bytes = 0;
  for (const entry of entries) {
    if (entry.isFile()) bytes += (await stat(join(entry.parentPath, entry.name))).size;
  }
  return bytes / 1024 / 1024;
}

async function layout(store: LanceDbVectorStore, dir: string) {
  const stats = await store.stats();
  return {
    fragments: stats?.fragments ?? 0,
    versions: stats?.versions ?? 0,
    indexes: stats?.indexes ?? [],
    diskMb: await diskMb(dir),
  };
}

/** Writes ids 0..size-1 in batches, timing each upsert alone (building the records is not the store's cost). */
async function writeNight(
  store: MaintainedVectorStore,
  lance: { store: LanceDbVectorStore; dir: string } | undefined,
  options: { size: number; batchSize: number; dimensions: number; night: 1 | 2 },
): Promise<VectorPhaseResult> {
  const batchMs: number[] = [];
  const batchRecords: number[] = [];
  for (let start = 0; start < options.size; start += options.batchSize) {
    const end = Math.min(start + options.batchSize, options.size);
    const batch = Array.from({ length: end - start }, (_, k) =>
      record(start + k, options.night, options.dimensions),
    );
    const began = performance.now();
    await store.upsert(batch);
    batchMs.push(performance.now() - began);
    batchRecords.push(batch.length);
  }
  const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
  const tail = Math.max(1, Math.ceil(batchMs.length / 10));
  const after = lance ? await layout(lance.store, lance.dir).then(({ indexes: _, ...rest }) => rest) : {};
  return {
    records: options.size,
    batches: batchMs.length,
    seconds: sum(batchMs) / 1000,
    msPerRecord: sum(batchMs) / options.size,
    lastTenthMsPerRecord: sum(batchMs.slice(-tail)) / sum(batchRecords.slice(-tail)),
    ...after,
  };
}

/** A fresh, empty store of one kind, and what removes it afterwards. */
async function openFresh(
  kind: VectorBenchStore,
  dimensions: number,
  servers: VectorBenchServers,
): Promise<{
  store: MaintainedVectorStore;
  lance?: { store: LanceDbVectorStore; dir: string };
  remove: () => Promise<void>;
}> {
  const name = `bench_vectors_${randomBytes(4).toString('hex')}`;
  switch (kind) {
    case 'lancedb': {
      const dir = await mkdtemp(join(tmpdir(), 'memfade-vector-scaling-'));
      const store = await LanceDbVectorStore.open({ dir, dimensions, embeddingModel: MODEL });
      return { store, lance: { store, dir }, remove: () => rm(dir, { recursive: true, force: true }) };
    }
    case 'pgvector': {
      const url = servers.pgvectorUrl;
      if (!url) throw new Error('vector scaling: no PostgreSQL with pgvector to measure');
      const store = await PgVectorStore.open({ url, table: name, dimensions, embeddingModel: MODEL });
      const remove = async () => {
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        try {
          await client.query(`DROP TABLE IF EXISTS ${name}`);
        } finally {
          await client.end();
        }
      };
      return { store, remove };
    }
    case 'mongodb': {
      const db = servers.mongoDb;
      if (!db) throw new Error('vector scaling: no MongoDB to measure');
      const store = await MongoVectorStore.open({ db, collection: name, dimensions, embeddingModel: MODEL });
      // The embedded test server has no drop for a database; a collection it can drop.
      return {
        store,
        remove: () =>
          db
            .collection(name)
            .drop()
            .then(
              () => undefined,
              () => undefined,
            ),
      };
    }
  }
}

async function measureSize(
  kind: VectorBenchStore,
  size: number,
  batchSize: number,
  dimensions: number,
  servers: VectorBenchServers,
): Promise<VectorScalingResult> {
  const { store, lance, remove } = await openFresh(kind, dimensions, servers);
  try {
    const insert = await writeNight(store, lance, { size, batchSize, dimensions, night: 1 });
    const update = await writeNight(store, lance, { size, batchSize, dimensions, night: 2 });
    const count = await store.count();
    // A lost, duplicated or stale row would make the timings meaningless.
    if (count !== size)
      throw new Error(`vector scaling (${kind}): expected ${size} rows after the update, found ${count}`);
    const sample = await store.get(['vs-0', `vs-${size - 1}`]);
    if (sample.length !== 2 || sample.some((r) => r.rev !== 2)) {
      throw new Error(`vector scaling (${kind}): the update night did not replace every record`);
    }
    if (!lance) return { store: kind, size, batchSize, dimensions, insert, update };
    const compactions = (await lance.store.stats())?.compactions ?? 0;
    const began = performance.now();
    await store.optimize();
    const seconds = (performance.now() - began) / 1000;
    const { indexes, ...compacted } = await layout(lance.store, lance.dir);
    return {
      store: kind,
      size,
      batchSize,
      dimensions,
      insert,
      update,
      compactions,
      optimize: { seconds, ...compacted },
      indexes,
    };
  } finally {
    await store.close();
    await remove();
  }
}

/** For each store and size, on a fresh table: a first night of inserts, then a night of updates of the same ids. */
export async function benchmarkVectorScaling(options: {
  stores: readonly VectorBenchStore[];
  sizes: number[];
  batchSize: number;
  dimensions: number;
  servers: VectorBenchServers;
}): Promise<VectorScalingResult[]> {
  const results: VectorScalingResult[] = [];
  for (const kind of options.stores) {
    // The first table of a store pays one-off costs (native module start, connections, JIT) that
    // would inflate whichever size came first.
    await measureSize(
      kind,
      Math.min(1_000, ...options.sizes),
      options.batchSize,
      options.dimensions,
      options.servers,
    );
    for (const size of options.sizes) {
      results.push(await measureSize(kind, size, options.batchSize, options.dimensions, options.servers));
    }
  }
  return results;
}
