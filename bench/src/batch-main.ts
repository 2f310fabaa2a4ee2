import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { defaultConfig } from '@memfade/app';
import { startMongoServer, startRedisServer } from '@memfade/runtime';
import { batchNightTable, benchmarkBatchNight } from './batch-night.js';
import { benchEnv } from './env.js';

// `pnpm bench:batch`: the batch night alone (the whole `pnpm bench` runs it last), on servers of its own.
const redis = benchEnv.redisUrl ? undefined : await startRedisServer();
const mongo = benchEnv.mongodbUri ? undefined : await startMongoServer();
try {
  const config = defaultConfig({
    redisUrl: benchEnv.redisUrl ?? redis!.url,
    mongodbUri: benchEnv.mongodbUri ?? mongo!.uri,
  });
  const result = await benchmarkBatchNight(config, {
    memories: benchEnv.batchMemories,
    users: benchEnv.batchUsers,
    workers: benchEnv.batchWorkers,
    model: benchEnv.batchModel,
    dbPid: mongo?.child.pid,
  });
  await mkdir(benchEnv.resultsDir, { recursive: true });
  const date = new Date().toISOString();
  const file = join(benchEnv.resultsDir, `${date.replace(/[:.]/g, '-')}-batch-night.json`);
  await writeFile(file, `${JSON.stringify({ date, batchNight: result }, null, 2)}\n`);
  console.log(batchNightTable(result));
  console.log(`\nresults: ${file}`);
} finally {
  await Promise.all([redis?.stop(), mongo?.stop()]);
}
