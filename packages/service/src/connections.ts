import { errorMessage } from '@memfade/core';
import { closeMongo, connectMongo } from '@memfade/db';
import { type MemfadeQueues, openQueues, outageLog, producerConnection, redisAddress } from '@memfade/queue';
import type { Logger } from '@memfade/runtime';
import type { Redis } from 'ioredis';
import type { Connection } from 'mongoose';
import type { MemfadeConfig } from './config.js';

/** The hosts and ports of a connection string, never its credentials: what an error message may name. */
export function connectionAddress(uri: string): string {
  return uri.match(/^[a-z][a-z0-9+.-]*:\/\/(?:[^@/?#]*@)?([^/?#]*)/i)?.[1] || '(unparsable URI)';
}

/** MongoDB, or an error that says MongoDB, where (MONGODB_URI's hosts) and why, within connectTimeoutMs. */
export async function openMongo(config: MemfadeConfig & { mongodbUri: string }): Promise<Connection> {
  try {
    return await connectMongo(config.mongodbUri, {
      dbName: config.mongodbDb,
      timeoutMs: config.connectTimeoutMs,
    });
  } catch (error) {
    throw new Error(
      `cannot connect to MongoDB at ${connectionAddress(config.mongodbUri)} (MONGODB_URI): ${errorMessage(error)}`,
    );
  }
}

/**
 * Redis and the queues on it, ready. A command fails after connectTimeoutMs with an error naming
 * REDIS_URL's host and port; with `waitWith` (the worker) it waits as long as it takes, logging
 * the outage with backoff. Wrong credentials fail at once either way: they never heal.
 */
export async function openRedis(
  config: MemfadeConfig & { redisUrl: string },
  options: { waitWith?: Logger } = {},
): Promise<{ redis: Redis; queues: MemfadeQueues }> {
  // ioredis's disconnect() waits this long for a socket to close, though a refused one has closed
  // already: a command that failed to connect would otherwise linger 2 s (the default) before exiting.
  const redis = producerConnection(config.redisUrl, { disconnectTimeout: 100 });
  const queues = openQueues({ connection: redis, prefix: config.queuePrefix });
  const address = redisAddress(redis);
  const outage = options.waitWith && outageLog(options.waitWith, 'Redis', address);
  let lastError: Error | undefined;
  let onError: (error: Error) => void = () => undefined;
  let timer: NodeJS.Timeout | undefined;
  const failed = new Promise<never>((_, reject) => {
    onError = (error) => {
      lastError = error;
      if (/^(WRONGPASS|NOAUTH)|invalid password/i.test(error.message))
        reject(new Error(`Redis refused the credentials of REDIS_URL: ${error.message}`));
      else outage?.error(error);
    };
    if (!outage)
      timer = setTimeout(() => {
        const why = lastError ? errorMessage(lastError) : 'no answer';
        reject(
          new Error(
            `cannot connect to Redis at ${address} (REDIS_URL) within ${config.connectTimeoutMs} ms: ${why}`,
          ),
        );
      }, config.connectTimeoutMs);
  });
  redis.on('error', onError);
  try {
    // Let BullMQ finish its own start-up commands before anything can close the connection under them.
    await Promise.race([
      Promise.all([queues.nightly.waitUntilReady(), queues.compress.waitUntilReady()]),
      failed,
    ]);
    outage?.ready();
    return { redis, queues };
  } catch (error) {
    redis.disconnect();
    throw error;
  } finally {
    clearTimeout(timer);
    redis.off('error', onError);
  }
}

/** Closes what did open when its partner failed to. */
export async function closeOpened(
  mongo: PromiseSettledResult<Connection>,
  redis: PromiseSettledResult<{ redis: Redis }>,
): Promise<void> {
  if (mongo.status === 'fulfilled') await closeMongo(mongo.value);
  if (redis.status === 'fulfilled') redis.value.redis.disconnect();
}
