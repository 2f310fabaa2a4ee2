import { Redis, type RedisOptions } from 'ioredis';
import type { Logger } from 'pino';

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
  return new Redis(url, {
    maxRetriesPerRequest: null,
    // Reconnect attempts back off from 100 ms to 2 s (ioredis's own cap): a return is seen within 2 s.
    retryStrategy: (times) => Math.min(100 * 2 ** (times - 1), 2_000),
    ...options,
  });
}

/** host:port of a connection, never its credentials: what an error message or a log line may name. */
export function redisAddress(redis: Redis): string {
  return `${redis.options.host}:${redis.options.port}`;
}

/**
 * A network failure (refused, reset, timed out, unknown host), a connection closed under a command,
 * or a command given up while the connection was down (a producer connection retries once).
 */
export function isConnectionError(error: Error): boolean {
  const code = (error as { code?: unknown }).code;
  return (
    (typeof code === 'string' && /^E[A-Z]+$/.test(code)) ||
    /Connection is closed/i.test(error.message) ||
    error.name === 'MaxRetriesPerRequestError'
  );
}

export interface OutageLog {
  /** A connection error: logged when the service goes away, then once per backoff step while it stays away. */
  error(error: Error): void;
  /** The service answered: logs that it is back if it was away. */
  ready(): void;
}

/**
 * What a process logs about an outage of Redis or MongoDB: one line when it starts, one more after
 * 1 s, 2 s, 4 s, ... (at most a minute apart) while it lasts, and one when the service is back,
 * without stack traces. Every connection (or job) of the process reports to the same log, so the
 * reconnect attempts of several connections do not each print their own error.
 */
export function outageLog(logger: Logger, service: 'Redis' | 'MongoDB', address: string): OutageLog {
  const where = { [service.toLowerCase()]: address };
  let since: number | undefined;
  let step = 0;
  let nextAt = 0;
  return {
    error(error) {
      const now = Date.now();
      if (since === undefined) {
        since = now;
        step = 1_000;
        nextAt = now + step;
        logger.warn(
          { ...where, reason: error.message },
          `${service} unreachable: waiting for it, with backoff`,
        );
      } else if (now >= nextAt) {
        step = Math.min(step * 2, 60_000);
        nextAt = now + step;
        logger.warn({ ...where, reason: error.message, downMs: now - since }, `still waiting for ${service}`);
      }
    },
    ready() {
      if (since === undefined) return;
      logger.info({ ...where, downMs: Date.now() - since }, `${service} is back`);
      since = undefined;
    },
  };
}
