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

/**
 * The `text` column of a LanceDB table in each of its versions a checkout still reaches, as one text
 * per version: where the fault suite and the simulator look for a text memfade should no longer hold
 * in the vector store. LanceDB compresses its string pages, so its bytes cannot be searched; and a
 * delete only hides rows from the newest version, so every older one is read too. Undefined when the
 * folder holds no such table (each search decides what that means for it).
 */
export async function lanceTexts(
  dir: string,
  tableName = 'memories',
): Promise<[version: number, text: string][] | undefined> {
  // Imported here, not at the top: most files that import @memfade/testing never read a store, and
  // the native module is costly to load (the same reason as packages/vector's LanceDbVectorStore).
  const { connect } = await import('@lancedb/lancedb');
  const connection = await connect(dir);
  try {
    if (!(await connection.tableNames()).includes(tableName)) return undefined;
    const table = await connection.openTable(tableName);
    const out: [number, string][] = [];
    for (const { version } of await table.listVersions()) {
      const reached = await table.checkout(version).then(
        () => true,
        () => false,
      );
      if (!reached) continue;
      const rows = await table.query().select(['text']).toArray();
      out.push([version, rows.map((row) => String(row.text)).join('\n')]);
    }
    table.close();
    return out;
  } finally {
    connection.close();
  }
}
