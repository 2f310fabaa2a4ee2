import {
  createBatchCompressor,
  createBatchEraser,
  createCompressor,
  createEmbedder,
  embeddingIdentity,
} from '@memfade/ai';
import type {
  BatchCompressor,
  BatchEraser,
  Compressor,
  Embedder,
  Exclusive,
  VectorStore,
} from '@memfade/core';
import {
  BatchRepository,
  closeMongo,
  createModels,
  ensureOwnIndexes,
  isMongoUnreachable,
  MemoryHolds,
  type Models,
  MongoMemoryStore,
  RunRepository,
} from '@memfade/db';
import type { MemfadeQueues } from '@memfade/queue';
import { ConfigError, type Logger } from '@memfade/runtime';
import type { MaintainedVectorStore } from '@memfade/vector';
import type { Redis } from 'ioredis';
import type { Connection } from 'mongoose';
import { BatchRecovery } from '../batch/batch-recovery.js';
import { releaseCompressJobs } from '../compress/release-jobs.js';
import { eraseFromBatches } from '../erasure/batch-erasure.js';
import { Erasure } from '../erasure/erasure.js';
import { FleetMetrics } from '../runs/metrics.js';
import { RunTracker } from '../runs/run-tracker.js';
import { VectorSyncer } from '../vectors/vector-sync.js';
import type { MemfadeConfig } from './config.js';
import { closeOpened, connectionAddress, openMongo, openRedis, unreachable } from './connections.js';
import { type MongoOutageWatch, watchMongoOutage } from './mongo-outage.js';
import { protectSecrets } from './secrets.js';
import { openVectorStore, vectorExclusive } from './vector-store.js';

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
  /** `memfade forget` (erasure/erasure.ts), taking its turn behind this process's vector sync. */
  erasure: Erasure;
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
    // MongoDB gone between the connect and here: said as a failed connect is, naming it (its words
    // alone, "write ECONNRESET" or "Connection pool ... was cleared", name no service).
    if (isMongoUnreachable(error))
      throw unreachable('MongoDB', connectionAddress(mongodbUri), error, {
        timeoutMs: config.connectTimeoutMs,
      });
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

/** The vector store on open operations, which are closed again when it cannot be opened. */
async function openVectorsOn(
  config: MemfadeConfig,
  operations: Operations,
  embedding: { model: string; dimensions: number },
): Promise<MaintainedVectorStore> {
  try {
    return await openVectorStore(config, operations, embedding);
  } catch (error) {
    await operations.close();
    throw error;
  }
}

/**
 * MongoDB, Redis and the vector store, open. A worker (`waitForRedis`) whose Redis goes away after it
 * connected, under a start-up command (the queues' connection gives a command up after one retry:
 * `MaxRetriesPerRequestError`), opens them again after a pause, as it waits for a Redis away from the
 * start (simulate --seed 714 saw a worker exit 2 so); anything else fails the start as before.
 */
async function openStores(
  config: MemfadeConfig,
  options: ServiceOptions,
  embedding: { model: string; dimensions: number },
): Promise<{ operations: Operations; vectors: MaintainedVectorStore }> {
  for (;;) {
    try {
      const operations = await openOperations(config, options);
      return { operations, vectors: await openVectorsOn(config, operations, embedding) };
    } catch (error) {
      const redisGone = error instanceof Error && error.name === 'MaxRetriesPerRequestError';
      if (!options.waitForRedis || !redisGone) throw error;
      options.logger.warn({ reason: error.message }, 'Redis went away while starting: opening again');
      await new Promise((resolve) => setTimeout(resolve, REOPEN_MS));
    }
  }
}

/** How long a starting worker pauses before it opens its services again after Redis went away. */
const REOPEN_MS = 1_000;

export async function createServices(config: MemfadeConfig, options: ServiceOptions): Promise<Services> {
  protectSecrets(config);
  // The model and embedder first: a provider without its key fails before any connection opens.
  const compressor = createCompressor(config.provider);
  const batchCompressor = config.batch.mode === 'batch' ? createBatchCompressor(config.provider) : undefined;
  const embedder = createEmbedder(config.embedder);
  const { operations, vectors } = await openStores(config, options, embedder);
  const exclusive = vectorExclusive(config, operations.redis);
  const vectorSync = new VectorSyncer({
    models: operations.models,
    memories: operations.store,
    embedder,
    store: vectors,
    logger: options.logger,
    batchSize: config.vectorSync.batchSize,
    now: operations.now,
    policy: config.policy,
    releaseJobs: (memoryIds) => releaseCompressJobs(operations.queues, memoryIds),
    outage: operations.mongoOutage,
    metrics: operations.metrics,
    exclusive,
  });
  const erasure = erasureOf(operations, vectors, {
    exclusive,
    batchEraser: () => batchCompressor ?? createBatchEraser(config.provider),
    turn: (work) => vectorSync.queued(work),
  });
  return {
    ...operations,
    compressor,
    ...(batchCompressor && { batchCompressor }),
    embedder,
    vectors,
    vectorSync,
    erasure,
    close: async () => {
      await vectorSync.stop();
      await vectors.close();
      await operations.close();
    },
  };
}

/**
 * Erasure (erasure/erasure.ts) over what is open: MongoDB, the vector store, the compress queue and
 * the batch records. The provider's batch API is asked for only when a batch at the provider holds
 * the target (batch-erasure.ts), even with MODEL_MODE=sync: earlier nights' batches hold text.
 */
function erasureOf(
  operations: Operations,
  store: VectorStore,
  options: {
    exclusive?: Exclusive;
    batchEraser: () => BatchEraser | undefined;
    turn?: <T>(work: () => Promise<T>) => Promise<T>;
  },
): Erasure {
  const { models, config, now, queues, batches, tracker } = operations;
  return new Erasure({
    models,
    store,
    memories: operations.store,
    policy: config.policy,
    now,
    exclusive: options.exclusive,
    releaseJobs: (memoryIds) => releaseCompressJobs(queues, memoryIds),
    batchErasure: (memoryIds) =>
      eraseFromBatches(memoryIds, { batches, tracker, model: options.batchEraser }),
    turn: options.turn,
  });
}

/** What `memfade forget` opens: the operations, the vector store and erasure; no model, no embedder. */
export interface ErasureServices extends Operations {
  erasure: Erasure;
}

/**
 * Opens erasure alone (`memfade forget`): MongoDB, Redis and the vector store, opened with the
 * embedding model's name and dimensions (no embedder). No model key is read unless a batch at the
 * provider holds the target, and then only the batch client's (docs/design.md invariant 8).
 */
export async function openErasure(config: MemfadeConfig, options: ServiceOptions): Promise<ErasureServices> {
  protectSecrets(config);
  const identity = embeddingIdentity(config.embedder);
  const operations = await openOperations(config, options);
  const vectors = await openVectorsOn(config, operations, identity);
  const erasure = erasureOf(operations, vectors, {
    exclusive: vectorExclusive(config, operations.redis),
    batchEraser: () => createBatchEraser(config.provider),
  });
  return {
    ...operations,
    erasure,
    close: async () => {
      await vectors.close();
      await operations.close();
    },
  };
}
