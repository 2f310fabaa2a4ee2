/** Test services: point these at existing servers to skip starting private ones. */
export const testEnv = {
  redisUrl: process.env.REDIS_URL || undefined,
  mongodbUri: process.env.MONGODB_URI || undefined,
  /** PostgreSQL with pgvector; the vector store tests use their own tables in it. */
  pgvectorUrl: process.env.PGVECTOR_URL || undefined,
};

/**
 * The environment of a worker or CLI child process: its explicit settings plus PATH, nothing else
 * of the parent's, so a developer's exported variables (NODE_OPTIONS, a provider key, LOG_LEVEL)
 * never change what a test or the benchmark runs.
 */
export function childEnv(settings: Record<string, string | undefined>): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, ...settings };
}

/**
 * This test worker's own MongoDB-wire server among `uris` (the global setup's `mongoUris`: one per
 * worker, or just MONGODB_URI). VITEST_POOL_ID numbers the workers from 1.
 */
export function workerMongoUri(uris: readonly string[]): string {
  const worker = Number(process.env.VITEST_POOL_ID ?? 1) - 1;
  return uris[worker % uris.length]!;
}
