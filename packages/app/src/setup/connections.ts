import { errorMessage } from '@memfade/core';
import { closeMongo, connectMongo, isMongoUnreachable, socketCode } from '@memfade/db';
import {
  isConnectionError,
  type MemfadeQueues,
  type OutageLog,
  openQueues,
  outageLog,
  producerConnection,
  redisAddress,
} from '@memfade/queue';
import type { Logger } from '@memfade/runtime';
import type { Redis } from 'ioredis';
import type { Connection } from 'mongoose';
import { queueTelemetry } from '../telemetry/tracing.js';
import type { MemfadeConfig } from './config.js';

/** The hosts and ports of a connection string, never its credentials: what an error message may name. */
export function connectionAddress(uri: string): string {
  return uri.match(/^[a-z][a-z0-9+.-]*:\/\/(?:[^@/?#]*@)?([^/?#]*)/i)?.[1] || '(unparsable URI)';
}

/**
 * A service that could not be reached or refused us: the message names it, its host and port
 * (never credentials), what happened and the setting to look at; `reason` is what happened alone.
 */
export class ConnectError extends Error {
  constructor(
    message: string,
    readonly reason: string,
  ) {
    super(message);
    this.name = 'ConnectError';
  }
}

/**
 * Why a service could not be reached, from the socket error (refused and unknown hosts are told at
 * once) or the silence that outlasted timeoutMs. `accepted`: the TCP connection was made and the
 * service never answered (another service on that port, or one that needs TLS).
 */
export function unreachable(
  service: 'Redis' | 'MongoDB',
  address: string,
  error: unknown,
  options: { timeoutMs: number; timedOut?: boolean; accepted?: boolean },
): ConnectError {
  const setting = service === 'Redis' ? 'REDIS_URL' : 'MONGODB_URI';
  const code = socketCode(error);
  let what: string;
  let hint = '';
  let waited = false;
  if (code === 'ECONNREFUSED') what = 'refused the connection';
  else if (code === 'ENOTFOUND') what = 'names no known host';
  else if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') what = 'is unreachable: no route to the host';
  else if (options.accepted) {
    what = `accepted the connection but did not answer within ${options.timeoutMs} ms`;
    hint = `is ${service} listening there${service === 'Redis' ? ', and does it need TLS (rediss://)' : ''}?`;
    waited = true;
  } else if (options.timedOut || code === 'ETIMEDOUT' || /timed out/i.test(errorMessage(error))) {
    what = `did not answer within ${options.timeoutMs} ms`;
    waited = true;
  } else {
    what = 'could not be reached';
    hint = errorMessage(error);
  }
  const settings = waited ? `${setting}, CONNECT_TIMEOUT_MS` : setting;
  return new ConnectError(
    `${service} at ${address} ${what} (${settings})${hint && `: ${hint}`}`,
    `${what}${waited ? ' (CONNECT_TIMEOUT_MS)' : ''}${hint && `: ${hint}`}`,
  );
}

/**
 * MongoDB, or an error that says MongoDB, where (MONGODB_URI's hosts) and what happened: at once
 * when it refuses or the host is unknown, after connectTimeoutMs when it does not answer.
 */
export async function openMongo(config: MemfadeConfig & { mongodbUri: string }): Promise<Connection> {
  try {
    return await connectMongo(config.mongodbUri, {
      dbName: config.mongodbDb,
      timeoutMs: config.connectTimeoutMs,
    });
  } catch (error) {
    const address = connectionAddress(config.mongodbUri);
    // Not a network failure (bad credentials, a bad URI option...): the driver's words say it best.
    if (!isMongoUnreachable(error))
      throw new Error(`cannot connect to MongoDB at ${address} (MONGODB_URI): ${errorMessage(error)}`);
    throw unreachable('MongoDB', address, error, { timeoutMs: config.connectTimeoutMs });
  }
}

/** Redis answered with a refusal of the credentials: it never heals, whoever waits. */
const credentialsRefused = (error: Error) => /^(WRONGPASS|NOAUTH)|invalid password/i.test(error.message);

/**
 * Waits for `ready` on a Redis connection, or fails with a line naming Redis, its host and port
 * and what happened: at once when it refuses the connection, the host is unknown or the
 * credentials are wrong; after timeoutMs when it does not answer, whatever ioredis said meanwhile
 * ("Reached the max retries per request limit", "Connection is closed": words that name neither
 * the service nor the host). With `outage` (the worker) only wrong credentials end the wait: the
 * connection's errors go to the outage log.
 */
export async function whenRedisReady<T>(
  redis: Redis,
  ready: Promise<T>,
  options: { timeoutMs: number; outage?: OutageLog },
): Promise<T> {
  const address = redisAddress(redis);
  const { outage, timeoutMs } = options;
  let lastError: Error | undefined;
  let accepted = false;
  const onConnect = () => {
    accepted = true;
  };
  let onError: (error: Error) => void = () => undefined;
  let timer: NodeJS.Timeout | undefined;
  const failed = new Promise<never>((_, reject) => {
    const fail = (error: unknown, timedOut = false) =>
      reject(unreachable('Redis', address, error, { timeoutMs, timedOut, accepted }));
    onError = (error) => {
      if (credentialsRefused(error))
        return reject(
          new ConnectError(
            `Redis refused the credentials of REDIS_URL: ${error.message}`,
            `refused the credentials of REDIS_URL: ${error.message}`,
          ),
        );
      lastError = error;
      if (outage) outage.error(error);
      else if (['ECONNREFUSED', 'ENOTFOUND'].includes(socketCode(error) ?? '')) fail(error);
    };
    if (outage) return;
    timer = setTimeout(() => fail(lastError, true), timeoutMs);
    ready.catch((error: Error) => {
      // A command given up or a connection closed under it says the connection failed, not how:
      // the time limit or the connection's own error says that. Anything else (an ACL refusal, a
      // Redis too old for BullMQ) is told at once.
      if (credentialsRefused(error)) onError(error);
      else if (!isConnectionError(error))
        reject(new ConnectError(`Redis at ${address} (REDIS_URL): ${error.message}`, error.message));
    });
  });
  redis.on('error', onError);
  redis.on('connect', onConnect);
  try {
    // Without an outage log, only `failed` says why `ready` failed.
    return await Promise.race([outage ? ready : ready.catch(() => failed), failed]);
  } finally {
    clearTimeout(timer);
    redis.off('error', onError);
    redis.off('connect', onConnect);
  }
}

/**
 * Redis and the queues on it, ready. A command fails at once when Redis refuses the connection,
 * after connectTimeoutMs when it does not answer, with an error naming REDIS_URL's host and port;
 * with `waitWith` (the worker) it waits as long as it takes, logging the outage with backoff. Wrong
 * credentials fail at once either way: they never heal.
 */
export async function openRedis(
  config: MemfadeConfig & { redisUrl: string },
  options: { waitWith?: Logger } = {},
): Promise<{ redis: Redis; queues: MemfadeQueues }> {
  // ioredis's disconnect() waits this long for a socket to close, though a refused one has closed
  // already: a command that failed to connect would otherwise linger 2 s (the default) before exiting.
  // Its connect timeout is CONNECT_TIMEOUT_MS, so it does not give up on a silent host before we do.
  const redis = producerConnection(config.redisUrl, {
    disconnectTimeout: 100,
    connectTimeout: config.connectTimeoutMs,
  });
  const queues = openQueues({
    connection: redis,
    prefix: config.queuePrefix,
    retryBackoffMs: config.retryBackoffMs,
    telemetry: queueTelemetry(),
  });
  const outage = options.waitWith && outageLog(options.waitWith, 'Redis', redisAddress(redis));
  try {
    // Let BullMQ finish its own start-up commands before anything can close the connection under them.
    const ready = Promise.all([queues.nightly.waitUntilReady(), queues.compress.waitUntilReady()]);
    await whenRedisReady(redis, ready, { timeoutMs: config.connectTimeoutMs, outage });
    outage?.ready();
    return { redis, queues };
  } catch (error) {
    redis.disconnect();
    throw error;
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
