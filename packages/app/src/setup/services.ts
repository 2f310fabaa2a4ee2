import { createBatchCompressor, createCompressor, createEmbedder } from '@memfade/ai';
import type { BatchCompressor, Compressor, Embedder } from '@memfade/core';
import {
  BatchRepository,
  closeMongo,
  createModels,
  ensureOwnIndexes,
  MemoryHolds,
  type Models,
  MongoMemoryStore,
  RunRepository,
} from '@memfade/db';
import { type MemfadeQueues, vectorWriteLock } from '@memfade/queue';
import { ConfigError, type Logger } from '@memfade/runtime';
import { createVectorStore, type MaintainedVectorStore, MongoVectorStore } from '@memfade/vector';
import type { Redis } from 'ioredis';
import type { Connection } from 'mongoose';
import { eraseFromBatches } from '../batch/batch-erasure.js';
import { BatchRecovery } from '../batch/batch-recovery.js';
import { releaseCompressJobs } from '../compress/release-jobs.js';
import { FleetMetrics } from '../runs/metrics.js';
import { RunTracker } from '../runs/run-tracker.js';
import { VectorSyncer } from '../vectors/vector-sync.js';
import type { MemfadeConfig } from './config.js';
import { closeOpened, connectionAddress, openMongo, openRedis } from './connections.js';
import { type MongoOutageWatch, watchMongoOutage } from './mongo-outage.js';
import { protectSecrets } from './secrets.js';

/** What every role reads and writes: MongoDB (memories, runs) and the queues. The dashboard needs no more. */
export interface Operations {
  config: MemfadeConfig;
  logger: Logger;
  now: () => Date;
  mongo: Connection;
  models: Models;
  store: MongoMemoryStore;
  runs: RunRepository;
  /** Batch mode's request and batch records. */
  batches: BatchRepository;
  /** Which run holds each memory with a request in flight: no memory is requested by two runs. */
  holds: MemoryHolds;
  /** The one owner of run accounting (counts, finishing); `runs` only stores. */
  tracker: RunTracker;
  /** The fleet's Prometheus counters in Redis: the tracker records what it counts there. */
  metrics: FleetMetrics;
  redis: Redis;
  queues: MemfadeQueues;
  /** Where jobs and sweeps report MongoDB being away: one outage log instead of an error each. */
  mongoOutage: MongoOutageWatch;
  close(): Promise<void>;
}

/** Everything a worker or the CLI needs: the operations plus the model, the embedder and the vector store. */
export interface Services extends Operations {
  compressor: Compressor;
  /** The provider's batch API when MODEL_MODE=batch and the provider has one; else every run is sync. */
  batchCompressor?: BatchCompressor;
  embedder: Embedder;
  vectors: MaintainedVectorStore;
  vectorSync: VectorSyncer;
}

export interface ServiceOptions {
  logger: Logger;
  /** The clock; tests and the demo pass a fixed one. */
  now?: () => Date;
  /**
   * Wait for an unreachable Redis as long as it takes, logging the outage (the worker), instead of
   * failing after CONNECT_TIMEOUT_MS (every command).
   */
  waitForRedis?: boolean;
}

export async function openOperations(config: MemfadeConfig, options: ServiceOptions): Promise<Operations> {
  protectSecrets(config);
  const { redisUrl, mongodbUri } = config;
  if (!redisUrl) throw new ConfigError('REDIS_URL is not set');
  if (!mongodbUri) throw new ConfigError('MONGODB_URI is not set');
  // Both at once, so a command fails within one connect timeout whichever of them is away.
  const [mongoResult, redisResult] = await Promise.allSettled([
    openMongo({ ...config, mongodbUri }),
    openRedis({ ...config, redisUrl }, { waitWith: options.waitForRedis ? options.logger : undefined }),
  ]);
  if (mongoResult.status === 'rejected' || redisResult.status === 'rejected') {
    await closeOpened(mongoResult, redisResult);
    throw mongoResult.status === 'rejected'
      ? mongoResult.reason
      : (redisResult as PromiseRejectedResult).reason;
  }
  const mongo = mongoResult.value;
  const { redis, queues } = redisResult.value;
  const models = createModels(mongo, config.mapping);
  try {
    // memfade's own collections only: the product's get theirs from `memfade doctor
    // --create-indexes`, when the operator asks (docs/design.md invariant 10).
    await ensureOwnIndexes(models);
  } catch (error) {
    await closeOpened(mongoResult, redisResult);
    throw error;
  }
  const runs = new RunRepository(models);
  const batches = new BatchRepository(models);
  const holds = new MemoryHolds(models);
  const metrics = new FleetMetrics(redis, config.queuePrefix);
  const { logger } = options;
  const batchRecovery = new BatchRecovery({
    batches,
    runs,
    queues,
    maxResumes: config.batch.maxResumes,
    logger,
  });
  const store = new MongoMemoryStore(models, {
    onDuplicateCards: (message, details) => logger.warn(details, message),
  });
  return {
    config,
    logger: options.logger,
    now: options.now ?? (() => new Date()),
    mongo,
    models,
    store,
    runs,
    batches,
    holds,
    tracker: new RunTracker({
      runs,
      memories: store,
      queues,
      redis,
      prefix: config.queuePrefix,
      holds,
      batchRecovery,
      metrics,
      logger,
    }),
    metrics,
    redis,
    queues,
    mongoOutage: watchMongoOutage(options.logger, connectionAddress(mongodbUri), () =>
      mongo.db!.command({ ping: 1 }),
    ),
    close: async () => {
      await metrics.close().catch((err) => logger.warn({ err }, 'last metrics not recorded'));
      await queues.close();
      await redis.quit();
      await closeMongo(mongo);
    },
  };
}

/** The configured vector store; MongoDB's lives in the product's database, on the connection already open. */
async function openVectorStore(
  config: MemfadeConfig,
  operations: Operations,
  embedder: Embedder,
): Promise<MaintainedVectorStore> {
  const { dimensions, model: embeddingModel } = embedder;
  const { vector } = config;
  switch (vector.kind) {
    case 'lancedb':
      return createVectorStore({ kind: 'lancedb', dir: vector.dir, dimensions, embeddingModel });
    case 'pgvector': {
      if (!vector.pgvector.url) throw new Error('PGVECTOR_URL is required with VECTOR_STORE=pgvector');
      return createVectorStore({
        kind: 'pgvector',
        url: vector.pgvector.url,
        table: vector.pgvector.table,
        poolSize: vector.pgvector.poolSize,
        dimensions,
        embeddingModel,
      });
    }
    case 'mongodb': {
      const store = await MongoVectorStore.open({
        db: operations.mongo,
        collection: vector.mongodb.collection,
        searchIndex: vector.mongodb.searchIndex,
        dimensions,
        embeddingModel,
      });
      if (store.searchIndex?.status === 'unsupported') {
        // Writes work without it; search (`$vectorSearch`) needs it, on Atlas or MongoDB 8.2+ with mongot.
        operations.logger.warn(
          { command: store.searchIndex.command, reason: store.searchIndex.reason },
          'MongoDB could not create the vector search index: create it where search runs',
        );
      }
      return store;
    }
  }
}

export async function createServices(config: MemfadeConfig, options: ServiceOptions): Promise<Services> {
  protectSecrets(config);
  // The model and embedder first: a provider without its key fails before any connection opens.
  const compressor = createCompressor(config.provider);
  const batchCompressor = config.batch.mode === 'batch' ? createBatchCompressor(config.provider) : undefined;
  const embedder = createEmbedder(config.embedder);
  const operations = await openOperations(config, options);
  let vectors: MaintainedVectorStore;
  try {
    vectors = await openVectorStore(config, operations, embedder);
  } catch (error) {
    await operations.close();
    throw error;
  }
  const vectorSync = new VectorSyncer({
    models: operations.models,
    embedder,
    store: vectors,
    logger: options.logger,
    batchSize: config.vectorSync.batchSize,
    now: operations.now,
    policy: config.policy,
    releaseJobs: (memoryIds) => releaseCompressJobs(operations.queues, memoryIds),
    // Batch requests in flight and the provider's batch files (batch/batch-erasure.ts).
    batchErasure: (memoryIds) =>
      eraseFromBatches(memoryIds, {
        batches: operations.batches,
        tracker: operations.tracker,
        // The provider's batch API even with MODEL_MODE=sync now: earlier nights' batches hold text.
        model: batchCompressor ?? createBatchCompressor(config.provider),
      }),
    outage: operations.mongoOutage,
    metrics: operations.metrics,
    // Only LanceDB needs the fleet to take turns: two writers merging the same new id into one
    // folder can both insert it. pgvector and MongoDB upserts are conditional per row (ON CONFLICT
    // ... WHERE rev <=, a filtered update of one document), atomic on the server, so replicas
    // write at once.
    exclusive:
      config.vector.kind === 'lancedb' ? vectorWriteLock(operations.redis, config.queuePrefix) : undefined,
  });
  return {
    ...operations,
    compressor,
    ...(batchCompressor && { batchCompressor }),
    embedder,
    vectors,
    vectorSync,
    close: async () => {
      await vectorSync.stop();
      await vectors.close();
      await operations.close();
    },
  };
}
