import { defaultConfig, type MemfadeConfig } from '@memfade/app';
import { startMongoServer, startRedisServer } from '@memfade/runtime';
import { benchEnv } from './env.js';

export interface BenchServers {
  /** The default configuration on these servers, with the given settings over it. */
  config: MemfadeConfig;
  /** The processes of the servers started here (none for a URL given in the environment), to measure. */
  redisPid?: number;
  mongoPid?: number;
  stop(): Promise<void>;
}

/**
 * Redis and the MongoDB-wire server of a benchmark entry point: REDIS_URL and MONGODB_URI when
 * set, otherwise servers of its own, stopped by stop() (docs/benchmarks.md).
 */
export async function startBenchServers(settings: Partial<MemfadeConfig> = {}): Promise<BenchServers> {
  const redis = benchEnv.redisUrl ? undefined : await startRedisServer();
  const mongo = benchEnv.mongodbUri ? undefined : await startMongoServer();
  return {
    config: defaultConfig({
      redisUrl: benchEnv.redisUrl ?? redis!.url,
      mongodbUri: benchEnv.mongodbUri ?? mongo!.uri,
      ...settings,
    }),
    redisPid: redis?.child.pid,
    mongoPid: mongo?.child.pid,
    stop: async () => {
      await Promise.all([redis?.stop(), mongo?.stop()]);
    },
  };
}
