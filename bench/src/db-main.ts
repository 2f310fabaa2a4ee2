import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { defaultConfig } from '@memfade/app';
import { startMongoServer, startRedisServer } from '@memfade/runtime';
import { benchmarkDbCost, dbCostTable } from './db-cost.js';
import { benchEnv } from './env.js';

// `node bench/dist/db-main.js`: a night's MongoDB commands per memory, sync and batch, on servers of its own.
const redis = benchEnv.redisUrl ? undefined : await startRedisServer();
const mongo = benchEnv.mongodbUri ? undefined : await startMongoServer();
try {
  const config = defaultConfig({
    redisUrl: benchEnv.redisUrl ?? redis!.url,
    mongodbUri: benchEnv.mongodbUri ?? mongo!.uri,
  });
  const results = [];
  for (const mode of benchEnv.dbModes)
    results.push(
      await benchmarkDbCost(config, {
        mode,
        memories: benchEnv.dbMemories,
        users: benchEnv.dbUsers,
        memoryChars: benchEnv.dbMemoryChars,
        ages: benchEnv.dbAges,
      }),
    );
  await mkdir(benchEnv.resultsDir, { recursive: true });
  const date = new Date().toISOString();
  const file = join(benchEnv.resultsDir, `${date.replace(/[:.]/g, '-')}-db-cost.json`);
  await writeFile(file, `${JSON.stringify({ date, dbCost: results }, null, 2)}\n`);
  console.log(dbCostTable(results));
  console.log(`\nresults: ${file}`);
} finally {
  await Promise.all([redis?.stop(), mongo?.stop()]);
}
