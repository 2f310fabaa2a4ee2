import { setTimeout as sleep } from 'node:timers/promises';
import { uniqueName } from '@memfade/testing';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { LockLostError, redisLock } from './redis-lock.js';

const redis = new Redis(inject('redisUrl'));
afterAll(async () => {
  await redis.quit();
});

describe('redisLock', () => {
  it('keeps out a second holder while work runs longer than the lock lives (the holder renews it)', async () => {
    const key = uniqueName('lock');
    // Renewed every third of its life: a loaded machine's late timer still renews it in time.
    const exclusive = redisLock(redis, key, { ttlMs: 1_000, retryMs: 20 });
    const events: string[] = [];
    const holder = (name: string, ms: number) =>
      exclusive(async () => {
        events.push(`${name} in`);
        await sleep(ms);
        events.push(`${name} out`);
      });
    const first = holder('first', 2_000);
    await sleep(50);
    await Promise.all([first, holder('second', 10)]);
    expect(events).toEqual(['first in', 'first out', 'second in', 'second out']);
    expect(await redis.exists(key)).toBe(0);
  });

  it('waits out a holder that died (its lock expires) and releases even when the work throws', async () => {
    const key = uniqueName('lock');
    await redis.set(key, 'a process that was killed', 'PX', 1_000);
    const exclusive = redisLock(redis, key, { ttlMs: 5_000, retryMs: 20 });
    let ran = false;
    const waiting = exclusive(async () => {
      ran = true;
    });
    // Its lock lives a second: a loaded machine's late wake from this sleep still finds it held.
    await sleep(150);
    expect(ran).toBe(false);
    await waiting;
    expect(ran).toBe(true);
    await expect(exclusive(() => Promise.reject(new Error('merge failed')))).rejects.toThrow('merge failed');
    expect(await redis.exists(key)).toBe(0);
  });

  it('confirm() extends a lock still held and throws once it lapsed and another holds it', async () => {
    const key = uniqueName('lock');
    const exclusive = redisLock(redis, key, { ttlMs: 5_000, retryMs: 20 });
    await expect(
      exclusive(async ({ confirm }) => {
        await redis.pexpire(key, 100);
        await confirm();
        expect(await redis.pttl(key)).toBeGreaterThan(1_000);
        // Its renewals came too late (a busy process): the lock expired and another took it.
        await redis.set(key, 'another holder', 'PX', 5_000);
        await confirm();
      }),
    ).rejects.toThrow(LockLostError);
    expect(await redis.get(key)).toBe('another holder');
  });
});
