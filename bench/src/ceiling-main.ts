import { startLlmEmulator } from '@memfade/testing';
import { benchmarkEndToEnd } from './end-to-end.js';
import { benchEnv } from './env.js';
import { startBenchServers } from './servers.js';

// `node bench/dist/ceiling-main.js`: the end-to-end run at L = 0 of `pnpm bench` alone (the worker's
// CPU per memory), on servers of its own, with the offline compressor by default
// (BENCH_CEILING_PROVIDER=anthropic: the SDK against the emulator); BENCH_CEILING_MEMORIES memories
// at the largest of BENCH_CONCURRENCIES. Prints its result as JSON: made to time builds in turn
// (docs/benchmarks.md part 2).
const servers = await startBenchServers();
const emulator = await startLlmEmulator();
try {
  const concurrency = Math.max(...benchEnv.concurrencies);
  const result = await benchmarkEndToEnd(servers.config, emulator, {
    latencyMs: 0,
    concurrency,
    memories: benchEnv.ceilingMemories,
    users: Math.max(1, Math.round(benchEnv.users / 10)),
    dbPid: servers.mongoPid,
    provider: benchEnv.ceilingProvider,
  });
  console.log(JSON.stringify(result, null, 2));
} finally {
  await emulator.close();
  await servers.stop();
}
