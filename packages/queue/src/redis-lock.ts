import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Exclusive } from '@memfade/core';
import type { Redis } from 'ioredis';

/** Deletes the key only if it still holds this holder's token (an expired lock may be someone else's now). */
const RELEASE =
  "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0";
/** Extends the key's life only while it holds this holder's token. */
const RENEW =
  "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) end return 0";

/** Thrown by `confirm()` when the lock expired under its holder (its renewals came too late) and may be another's. */
export class LockLostError extends Error {
  override name = 'LockLostError';
}

/** What the work under a lock can ask: `confirm()` before an act that must not be done twice. */
export interface HeldLock {
  /** Extends the lock if this holder still holds it, else throws LockLostError. */
  confirm(): Promise<void>;
}

/**
 * A lock held in Redis (SET NX PX): callers wait for it, polling every retryMs. The holder renews
 * it every ttlMs / 3 while its work runs, so work may take any time, and a holder that dies
 * (kill -9) blocks the others for at most ttlMs. A holder whose timers ran late (an overloaded
 * process) can lose it unknowingly: work that must not overlap another holder's calls `confirm()`.
 */
export function redisLock(
  redis: Redis,
  key: string,
  options: { ttlMs: number; retryMs?: number },
): <T>(work: (lock: HeldLock) => Promise<T>) => Promise<T> {
  return async (work) => {
    const token = randomUUID();
    while ((await redis.set(key, token, 'PX', options.ttlMs, 'NX')) !== 'OK') {
      await sleep(options.retryMs ?? 50);
    }
    const renew = setInterval(() => {
      // A failed renewal (Redis gone for a moment) is retried at the next tick; the work goes on.
      redis.eval(RENEW, 1, key, token, options.ttlMs).catch(() => undefined);
    }, options.ttlMs / 3);
    const confirm = async () => {
      if ((await redis.eval(RENEW, 1, key, token, options.ttlMs)) !== 1)
        throw new LockLostError(`the lock ${key} expired under its holder`);
    };
    try {
      return await work({ confirm });
    } finally {
      clearInterval(renew);
      await redis.eval(RELEASE, 1, key, token);
    }
  };
}

/** How long a dead holder of the vector write lock keeps the other writers waiting (a live one renews it). */
const VECTOR_WRITE_LOCK_MS = 10_000;

/** The lock every process writing the vector store of this queue prefix takes turns on. */
export function vectorWriteLock(redis: Redis, queuePrefix: string): Exclusive {
  return redisLock(redis, `${queuePrefix}:vector-write-lock`, { ttlMs: VECTOR_WRITE_LOCK_MS });
}
