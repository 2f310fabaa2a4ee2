import { startMongoServer, startRedisServer } from '@memfade/runtime';
import type { TestProject } from 'vitest/node';
import { testEnv } from './env.js';

declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string;
    mongoUri: string;
  }
}

/** One private Redis and one MongoDB-wire server per test run, unless REDIS_URL / MONGODB_URI say otherwise. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const redis = testEnv.redisUrl ? undefined : await startRedisServer();
  const mongo = testEnv.mongodbUri ? undefined : await startMongoServer();
  project.provide('redisUrl', testEnv.redisUrl ?? redis!.url);
  project.provide('mongoUri', testEnv.mongodbUri ?? mongo!.uri);
  return async () => {
    await Promise.all([redis?.stop(), mongo?.stop()]);
  };
}
