import { defaultConfig } from '@memfade/app';
import { startMongoServer, startRedisServer } from '@memfade/runtime';
import { startLlmEmulator } from '@memfade/testing';
import { benchmarkEndToEnd } from './end-to-end.js';
import { benchEnv } from './env.js';

// `node bench/dist/ceiling-main.js`: the end-to-end run at L = 0 of `pnpm bench` alone (the worker's
// CPU per memory), on servers of its own, with the offline compressor by default
// (BENCH_CEILING_PROVIDER=anthropic: the SDK against the emulator); BENCH_CEILING_MEMORIES memories
// at the largest of BENCH_CONCURRENCIES. Prints its result as JSON: made to time builds in turn
// (docs/benchmarks.md part 2).
const redis = benchEnv.redisUrl ? undefined : await startRedisServer();
const mongo = benchEnv.mongodbUri ? undefined : await startMongoServer();
const emulator = await startLlmEmulator();
try {
  const config = defaultConfig({
    redisUrl: benchEnv.redisUrl ?? redis!.url,
    mongodbUri: benchEnv.mongodbUri ?? mongo!.uri,
  });
  const concurrency = Math.max(...benchEnv.concurrencies);
  const result = await benchmarkEndToEnd(config, emulator, {
    latencyMs: 0,
    concurrency,
    memories: benchEnv.ceilingMemories,
    users: Math.max(1, Math.round(benchEnv.users / 10)),
    dbPid: mongo?.child.pid,
    provider: benchEnv.ceilingProvider,
  });
  console.log(JSON.stringify(result, null, 2));
} finally {
  await emulator.close();
  await Promise.all([redis?.stop(), mongo?.stop()]);
}
