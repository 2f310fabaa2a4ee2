/** Benchmark sizes: the defaults, smaller for a smoke run. */
export const benchEnv = {
  memories: Number(process.env.BENCH_MEMORIES ?? 200_000),
  users: Number(process.env.BENCH_USERS ?? 2_000),
  redisUrl: process.env.REDIS_URL || undefined,
  mongodbUri: process.env.MONGODB_URI || undefined,
  resultsDir: process.env.BENCH_RESULTS_DIR ?? 'bench/results',
};
