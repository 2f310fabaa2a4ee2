import { startMongoServer, startRedisServer } from '@memfade/runtime';
import type { TestProject } from 'vitest/node';
import { testEnv } from './env.js';
import { startPgliteServer } from './pglite-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string;
    mongoUri: string;
    pgvectorUrl: string;
  }
}

/**
 * One private Redis, one MongoDB-wire server and one PostgreSQL with pgvector (PGlite) per test run,
 * unless REDIS_URL / MONGODB_URI / PGVECTOR_URL say otherwise. Started together: PGlite alone takes
 * a few seconds to start.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const [redis, mongo, postgres] = await Promise.all([
    testEnv.redisUrl ? undefined : startRedisServer(),
    testEnv.mongodbUri ? undefined : startMongoServer(),
    testEnv.pgvectorUrl ? undefined : startPgliteServer(),
  ]);
  project.provide('redisUrl', testEnv.redisUrl ?? redis!.url);
  project.provide('mongoUri', testEnv.mongodbUri ?? mongo!.uri);
  project.provide('pgvectorUrl', testEnv.pgvectorUrl ?? postgres!.url);
  return async () => {
    await Promise.all([redis?.stop(), mongo?.stop(), postgres?.stop()]);
  };
}
