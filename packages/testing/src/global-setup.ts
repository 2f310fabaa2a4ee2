import { startMongoServer, startRedisServer } from '@memfade/runtime';
import type { TestProject } from 'vitest/node';
import { testEnv } from './env.js';
import { startPgliteServer } from './pglite-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string;
    /** One MongoDB-wire server per test worker: `workerMongoUri(inject('mongoUris'))` picks its own. */
    mongoUris: string[];
    pgvectorUrl: string;
  }
}

/**
 * One private Redis and one PostgreSQL with pgvector (PGlite) per test run, and one MongoDB-wire
 * server per test worker, unless REDIS_URL / MONGODB_URI / PGVECTOR_URL say otherwise. A server
 * per worker because the MongoDB-wire server takes turns on every write: shared by the files
 * running at once, each one's writes waited for the others'. Started together: PGlite alone takes
 * a few seconds to start.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const workers = project.globalConfig.maxWorkers;
  const [redis, postgres, ...mongos] = await Promise.all([
    testEnv.redisUrl ? undefined : startRedisServer(),
    testEnv.pgvectorUrl ? undefined : startPgliteServer(),
    ...(testEnv.mongodbUri ? [] : Array.from({ length: workers }, () => startMongoServer())),
  ]);
  project.provide('redisUrl', testEnv.redisUrl ?? redis!.url);
  const mongoUris = testEnv.mongodbUri ? [testEnv.mongodbUri] : mongos.map((m) => m!.uri);
  project.provide('mongoUris', mongoUris);
  project.provide('pgvectorUrl', testEnv.pgvectorUrl ?? postgres!.url);
  return async () => {
    await Promise.all([redis?.stop(), postgres?.stop(), ...mongos.map((m) => m?.stop())]);
  };
}
