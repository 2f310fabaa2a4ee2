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
import { type MemfadeQueues, openQueues, producerConnection } from '@memfade/queue';
import type { Logger } from '@memfade/runtime';
import { createVectorStore } from '@memfade/vector';
import type { Connection } from 'mongoose';
import type { MemfadeConfig } from './config.js';
import { VectorSyncer } from './vector-sync.js';

/** Everything a role (worker, scheduler, CLI) needs, built once from the configuration. */
export interface Services {
  config: MemfadeConfig;
  logger: Logger;
  now: () => Date;
  mongo: Connection;
  models: Models;
  store: MongoMemoryStore;
  runs: RunRepository;
  queues: MemfadeQueues;
  compressor: Compressor;
  embedder: Embedder;
  vectors: Awaited<ReturnType<typeof createVectorStore>>;
  vectorSync: VectorSyncer;
  close(): Promise<void>;
}

export interface ServiceOptions {
  logger: Logger;
  /** The clock; tests and the demo pass a fixed one. */
  now?: () => Date;
}

export async function createServices(config: MemfadeConfig, options: ServiceOptions): Promise<Services> {
  if (!config.redisUrl) throw new Error('REDIS_URL is not set');
  if (!config.mongodbUri) throw new Error('MONGODB_URI is not set');
  const now = options.now ?? (() => new Date());
  const compressor = createCompressor(config.provider);
  const embedder = createEmbedder(config.embedder);
  const mongo = await connectMongo(config.mongodbUri, { dbName: config.mongodbDb });
  const models = createModels(mongo);
  await ensureIndexes(models);
  const vectors = await createVectorStore({
    kind: config.vector.kind,
    dir: config.vector.dir,
    dimensions: embedder.dimensions,
    embeddingModel: embedder.model,
  });
  const redis = producerConnection(config.redisUrl);
  const queues = openQueues({ connection: redis, prefix: config.queuePrefix });
  // Fail at start-up, not on the first enqueue, when Redis is unreachable; and let BullMQ finish
  // its own start-up commands before anything can close the connection under them.
  await Promise.all([queues.nightly.waitUntilReady(), queues.compress.waitUntilReady()]);
  const vectorSync = new VectorSyncer({
    models,
    embedder,
    store: vectors,
    logger: options.logger,
    batchSize: config.vectorSync.batchSize,
    now,
  });
  return {
    config,
    logger: options.logger,
    now,
    mongo,
    models,
    store: new MongoMemoryStore(models),
    runs: new RunRepository(models),
    queues,
    compressor,
    embedder,
    vectors,
    vectorSync,
    close: async () => {
      await vectorSync.stop();
      await queues.close();
      await redis.quit();
      await vectors.close();
      await closeMongo(mongo);
    },
  };
}
