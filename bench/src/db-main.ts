import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { benchmarkDbCost, dbCostTable } from './db-cost.js';
import { benchEnv } from './env.js';
import { startBenchServers } from './servers.js';

// `node bench/dist/db-main.js`: a night's MongoDB commands per memory, sync and batch, on servers of its own.
const servers = await startBenchServers();
try {
  const results = [];
  for (const mode of benchEnv.dbModes)
    results.push(
      await benchmarkDbCost(servers.config, {
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
  await servers.stop();
}
