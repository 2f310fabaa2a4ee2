/** What the leak searches need of a Redis client (ioredis's methods, by shape). */
interface RedisReader {
  keys(pattern: string): Promise<string[]>;
  type(key: string): Promise<string>;
  get(key: string): Promise<string | null>;
  hgetall(key: string): Promise<Record<string, string>>;
  lrange(key: string, start: number, stop: number): Promise<string[]>;
  smembers(key: string): Promise<string[]>;
  zrange(key: string, start: number, stop: number): Promise<string[]>;
}

/**
 * Every Redis key under `prefix` with its values as one text (a string, a hash's values, a list's,
 * a set's or a sorted set's members): where the fault suite and the simulator look for a text
 * memfade should no longer hold.
 */
export async function redisTexts(redis: RedisReader, prefix: string): Promise<[key: string, text: string][]> {
  const out: [string, string][] = [];
  for (const key of await redis.keys(`${prefix}*`)) {
    const type = await redis.type(key);
    const values =
      type === 'string'
        ? [await redis.get(key)]
        : type === 'hash'
          ? Object.values(await redis.hgetall(key))
          : type === 'list'
            ? await redis.lrange(key, 0, -1)
            : type === 'set'
              ? await redis.smembers(key)
              : type === 'zset'
                ? await redis.zrange(key, 0, -1)
                : [];
    out.push([key, values.join('\n')]);
  }
  return out;
}
