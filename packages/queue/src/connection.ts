import { Redis, type RedisOptions } from 'ioredis';

/**
 * Connection profiles (BullMQ "going to production"): producers fail fast so an HTTP request
 * or CLI command gets an error instead of hanging; workers wait for Redis to come back.
 */
export function producerConnection(url: string, options: RedisOptions = {}): Redis {
  return new Redis(url, {
    maxRetriesPerRequest: 1,
    enableOfflineQueue: true,
    connectTimeout: 5_000,
    ...options,
  });
}

export function workerConnection(url: string, options: RedisOptions = {}): Redis {
  return new Redis(url, { maxRetriesPerRequest: null, ...options });
}
