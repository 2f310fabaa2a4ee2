import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Test services: point these at existing servers to skip starting private ones. */
export const testEnv = {
  redisUrl: process.env.REDIS_URL || undefined,
  mongodbUri: process.env.MONGODB_URI || undefined,
  /** PostgreSQL with pgvector; the vector store tests use their own tables in it. */
  pgvectorUrl: process.env.PGVECTOR_URL || undefined,
};

/**
 * Node's on-disk cache of compiled modules, shared by every child the tests start: the suite starts
 * the built CLI and worker well over a hundred times, and compiling their dependencies (mongoose,
 * BullMQ, the SDKs) again each time cost a tenth of a CLI command's CPU and a fifth of a worker's
 * start. It changes no behaviour: Node checks each module's source against its cached code, and
 * compiles as usual when they differ or the folder cannot be written.
 */
const COMPILE_CACHE = join(tmpdir(), 'memfade-test-compile-cache');

/**
 * The environment of a worker or CLI child process: its explicit settings plus PATH (and the
 * compile cache), nothing else of the parent's, so a developer's exported variables (NODE_OPTIONS,
 * a provider key, LOG_LEVEL) never change what a test or the benchmark runs.
 */
export function childEnv(settings: Record<string, string | undefined>): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, NODE_COMPILE_CACHE: COMPILE_CACHE, ...settings };
}

/**
 * This test worker's own MongoDB-wire server among `uris` (the global setup's `mongoUris`: one per
 * worker, or just MONGODB_URI). VITEST_POOL_ID numbers the workers from 1.
 */
export function workerMongoUri(uris: readonly string[]): string {
  const worker = Number(process.env.VITEST_POOL_ID ?? 1) - 1;
  return uris[worker % uris.length]!;
}

/**
 * Runs this test process as NODE_ENV `value` until the returned function puts the one before back
 * (unset stays unset: assigning `undefined` to process.env would store the string "undefined").
 */
export function overrideNodeEnv(value: string): () => void {
  const before = process.env.NODE_ENV;
  process.env.NODE_ENV = value;
  return () => {
    if (before === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = before;
  };
}
