import { errorMessage } from '@memfade/core';
import { closeMongo, createModels, type Models } from '@memfade/db';
import { producerConnection, redisAddress } from '@memfade/queue';
import { ConfigError } from '@memfade/runtime';
import type { Redis } from 'ioredis';
import type { Connection } from 'mongoose';
import type { MemfadeConfig } from './config.js';
import { ConnectError, openMongo, whenRedisReady } from './connections.js';
import { protectSecrets } from './secrets.js';

/** What `memfade doctor` looks at: MongoDB as it is (no index is created), and Redis if it answers. */
export interface Inspection {
  config: MemfadeConfig;
  mongo: Connection;
  models: Models;
  /** Redis, or why it could not be reached (doctor reports it and goes on with MongoDB). */
  redis: { client: Redis; address: string } | { error: string; address: string };
  close(): Promise<void>;
}

/**
 * Opens MongoDB without ensureIndexes (every other command creates the indexes it needs: doctor
 * reports them instead, and writes nothing) and a plain Redis connection that gives up after
 * CONNECT_TIMEOUT_MS.
 */
export async function openForInspection(config: MemfadeConfig): Promise<Inspection> {
  protectSecrets(config);
  const { redisUrl, mongodbUri } = config;
  if (!redisUrl) throw new ConfigError('REDIS_URL is not set');
  if (!mongodbUri) throw new ConfigError('MONGODB_URI is not set');
  const mongo = await openMongo({ ...config, mongodbUri });
  const client = producerConnection(redisUrl, {
    lazyConnect: true,
    connectTimeout: config.connectTimeoutMs,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    disconnectTimeout: 100,
  });
  const address = redisAddress(client);
  client.on('error', () => undefined);
  let redis: Inspection['redis'];
  try {
    // Bounded and named: a host that accepts and never answers would otherwise hang doctor (the
    // connect timeout stops at the TCP connection), and a black hole said "Connection is closed".
    await whenRedisReady(client, client.connect(), { timeoutMs: config.connectTimeoutMs });
    redis = { client, address };
  } catch (error) {
    client.disconnect();
    // What happened, without "Redis at <address>": doctor's report names them itself.
    redis = { error: error instanceof ConnectError ? error.reason : errorMessage(error), address };
  }
  return {
    config,
    mongo,
    models: createModels(mongo, config.mapping),
    redis,
    close: async () => {
      if ('client' in redis) redis.client.disconnect();
      await closeMongo(mongo);
    },
  };
}
