import { createCompressor, createEmbedder } from '@memfade/ai';
import type { Compressor, Embedder } from '@memfade/core';
import {
  closeMongo,
  createModels,
  ensureIndexes,
  type Models,
  MongoMemoryStore,
  RunRepository,
} from '@memfade/db';
import { type MemfadeQueues, RunTracker, vectorWriteLock } from '@memfade/queue';
import { ConfigError, type Logger } from '@memfade/runtime';
import { createVectorStore, VectorSyncer } from '@memfade/vector';
import type { Redis } from 'ioredis';
import type { Connection } from 'mongoose';
import type { MemfadeConfig } from './config.js';
import { closeOpened, openMongo, openRedis } from './connections.js';
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
  /** The one owner of run accounting (counts, finishing); `runs` only stores. */
  tracker: RunTracker;
  redis: Redis;
  queues: MemfadeQueues;
  close(): Promise<void>;
}

/** Everything a worker or the CLI needs: the operations plus the model, the embedder and the vector store. */
export interface Services extends Operations {
  compressor: Compressor;
  embedder: Embedder;
  vectors: Awaited<ReturnType<typeof createVectorStore>>;
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
    await ensureIndexes(models);
  } catch (error) {
    await closeOpened(mongoResult, redisResult);
    throw error;
  }
  const runs = new RunRepository(models);
  return {
    config,
    logger: options.logger,
    now: options.now ?? (() => new Date()),
    mongo,
    models,
    store: new MongoMemoryStore(models),
    runs,
    tracker: new RunTracker({ runs, queues, redis, prefix: config.queuePrefix, logger: options.logger }),
    redis,
    queues,
    close: async () => {
      await queues.close();
      await redis.quit();
      await closeMongo(mongo);
    },
  };
}

export async function createServices(config: MemfadeConfig, options: ServiceOptions): Promise<Services> {
  protectSecrets(config);
  // The model and embedder first: a provider without its key fails before any connection opens.
  const compressor = createCompressor(config.provider);
  const embedder = createEmbedder(config.embedder);
  const operations = await openOperations(config, options);
  const vectors = await createVectorStore({
    kind: config.vector.kind,
    dir: config.vector.dir,
    dimensions: embedder.dimensions,
    embeddingModel: embedder.model,
  });
  const vectorSync = new VectorSyncer({
    models: operations.models,
    embedder,
    store: vectors,
    logger: options.logger,
    batchSize: config.vectorSync.batchSize,
    now: operations.now,
    exclusive: vectorWriteLock(operations.redis, config.queuePrefix),
  });
  return {
    ...operations,
    compressor,
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
