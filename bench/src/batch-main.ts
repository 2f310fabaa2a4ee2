import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { batchNightTable, benchmarkBatchNight } from './batch-night.js';
import { benchEnv } from './env.js';
import { benchmarkLifetime, lifetimeTable } from './lifetime-cost.js';
import { startBenchServers } from './servers.js';

// `pnpm bench:batch`: what a memory's life costs (memories of real length, per model, naive / sync /
// batch, with and without the V2 draft), then the batch night (the whole `pnpm bench` runs that
// last), on servers of its own.
const servers = await startBenchServers();
try {
  const { config } = servers;
  const lifetime = benchEnv.lifetimePerSet
    ? await benchmarkLifetime(config, {
        perSet: benchEnv.lifetimePerSet,
        ...(benchEnv.lifetimeModels && { models: benchEnv.lifetimeModels }),
        perRequest: benchEnv.lifetimePerRequest,
      })
    : undefined;
  if (lifetime) console.log(`${lifetimeTable(lifetime)}\n`);
  const result = benchEnv.batchNight
    ? await benchmarkBatchNight(config, {
        memories: benchEnv.batchMemories,
        users: benchEnv.batchUsers,
        workers: benchEnv.batchWorkers,
        model: benchEnv.batchModel,
        dbPid: servers.mongoPid,
      })
    : undefined;
  await mkdir(benchEnv.resultsDir, { recursive: true });
  const date = new Date().toISOString();
  const file = join(benchEnv.resultsDir, `${date.replace(/[:.]/g, '-')}-batch-night.json`);
  await writeFile(file, `${JSON.stringify({ date, lifetime, batchNight: result }, null, 2)}\n`);
  if (result) console.log(batchNightTable(result));
  console.log(`\nresults: ${file}`);
} finally {
  await servers.stop();
}
