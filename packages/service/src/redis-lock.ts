import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';

/** Runs work while no other process of the fleet runs work under the same lock. */
export type Exclusive = <T>(work: () => Promise<T>) => Promise<T>;

/** Deletes the key only if it still holds this holder's token (an expired lock may be someone else's now). */
const RELEASE =
  "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0";

/**
 * A lock held in Redis (SET NX PX): callers wait for it, polling every retryMs. It expires after
 * ttlMs, so a holder that dies (kill -9) blocks the others at most that long; work must finish
 * well within it.
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
    try {
      return await work();
    } finally {
      await redis.eval(RELEASE, 1, key, token);
    }
  };
}
