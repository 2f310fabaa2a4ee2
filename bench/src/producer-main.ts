import { openOperations } from '@memfade/app';
import { createLogger } from '@memfade/runtime';
import { seed } from './dataset.js';
import { benchEnv } from './env.js';
import { benchmarkProducer } from './producer.js';
import { startBenchServers } from './servers.js';

// `node bench/dist/producer-main.js`: the producer part of `pnpm bench` alone (BENCH_MEMORIES,
// BENCH_USERS), on servers of its own; prints its result as JSON. Run it under `node --cpu-prof`
// to profile the producer, or time it whole against another build.
const tag = Date.now().toString(36);
const servers = await startBenchServers({ mongodbDb: `bench-${tag}`, queuePrefix: `bench-${tag}` });
const operations = await openOperations(servers.config, { logger: createLogger({ level: 'warn' }) });
try {
  const { due } = await seed(operations.models, {
    memories: benchEnv.memories,
    users: benchEnv.users,
    now: operations.now(),
  });
  const result = await benchmarkProducer(operations, due, benchEnv.memories, {
    db: servers.mongoPid,
    redis: servers.redisPid,
  });
  console.log(JSON.stringify(result, null, 2));
} finally {
  await operations.close();
  await servers.stop();
}
