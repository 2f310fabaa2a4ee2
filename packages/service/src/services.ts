import { createCompressor, createEmbedder } from '@memfade/ai';
import type { Compressor, Embedder } from '@memfade/core';
import {
  closeMongo,
  connectMongo,
  createModels,
  ensureIndexes,
  type Models,
  MongoMemoryStore,
  RunRepository,
} from '@memfade/db';
import { type MemfadeQueues, openQueues, producerConnection, RunTracker } from '@memfade/queue';
import type { Logger } from '@memfade/runtime';
import { createVectorStore } from '@memfade/vector';
import type { Redis } from 'ioredis';
import type { Connection } from 'mongoose';
import type { MemfadeConfig } from './config.js';
import { type Exclusive, redisLock } from './redis-lock.js';
import { protectSecrets } from './secrets.js';
import { VectorSyncer } from './vector-sync.js';

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
}

export async function openOperations(config: MemfadeConfig, options: ServiceOptions): Promise<Operations> {
  protectSecrets(config);
  if (!config.redisUrl) throw new Error('REDIS_URL is not set');
  if (!config.mongodbUri) throw new Error('MONGODB_URI is not set');
  const mongo = await connectMongo(config.mongodbUri, { dbName: config.mongodbDb });
  const models = createModels(mongo);
  await ensureIndexes(models);
  const redis = producerConnection(config.redisUrl);
  const queues = openQueues({ connection: redis, prefix: config.queuePrefix });
  // Fail at start-up, not on the first enqueue, when Redis is unreachable; and let BullMQ finish
  // its own start-up commands before anything can close the connection under them.
  const refused = credentialsRefused(redis);
  try {
    await Promise.race([
      Promise.all([queues.nightly.waitUntilReady(), queues.compress.waitUntilReady()]),
      refused.promise,
    ]);
  } catch (error) {
    redis.disconnect();
    await closeMongo(mongo);
    throw error;
  } finally {
    refused.stop();
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

/**
 * Rejects when Redis refuses REDIS_URL's credentials. ioredis would retry them forever (and BullMQ
 * wait for a connection that never comes), though a wrong password never heals: it is a
 * configuration error, to report at start-up like any other.
 */
function credentialsRefused(redis: Redis): { promise: Promise<never>; stop: () => void } {
  let listener: (error: Error) => void = () => undefined;
  const promise = new Promise<never>((_, reject) => {
    listener = (error) => {
      if (/^(WRONGPASS|NOAUTH)|invalid password/i.test(error.message))
        reject(new Error(`Redis refused the credentials of REDIS_URL: ${error.message}`));
    };
    redis.on('error', listener);
  });
  promise.catch(() => undefined);
  return { promise, stop: () => redis.off('error', listener) };
}

/** How long a dead holder of the vector write lock keeps the other writers waiting (a live one renews it). */
const VECTOR_WRITE_LOCK_MS = 10_000;

/** The lock every process writing the vector store of this queue prefix takes turns on. */
export function vectorWriteLock(redis: Redis, queuePrefix: string): Exclusive {
  return redisLock(redis, `${queuePrefix}:vector-write-lock`, { ttlMs: VECTOR_WRITE_LOCK_MS });
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
