import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';

/** Runs work while no other process of the fleet runs work under the same lock. */
export type Exclusive = <T>(work: () => Promise<T>) => Promise<T>;

/** Deletes the key only if it still holds this holder's token (an expired lock may be someone else's now). */
const RELEASE =
  "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0";
/** Extends the key's life only while it holds this holder's token. */
const RENEW =
  "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) end return 0";

/**
 * A lock held in Redis (SET NX PX): callers wait for it, polling every retryMs. The holder renews
 * it every ttlMs / 3 while its work runs, so work may take any time, and a holder that dies
 * (kill -9) blocks the others for at most ttlMs.
 */
export function redisLock(
  redis: Redis,
  key: string,
  options: { ttlMs: number; retryMs?: number },
): Exclusive {
  return async (work) => {
    const token = randomUUID();
    while ((await redis.set(key, token, 'PX', options.ttlMs, 'NX')) !== 'OK') {
      await sleep(options.retryMs ?? 50);
    }
    const renew = setInterval(() => {
      // A failed renewal (Redis gone for a moment) is retried at the next tick; the work goes on.
      redis.eval(RENEW, 1, key, token, options.ttlMs).catch(() => undefined);
    }, options.ttlMs / 3);
    try {
      return await work();
    } finally {
      clearInterval(renew);
      await redis.eval(RELEASE, 1, key, token);
    }
  };
}
