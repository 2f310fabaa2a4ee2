import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { benchEnv } from './env.js';
import { benchmarkEvalSpeed, evalSpeedTable, SHARED_SETS } from './eval-speed.js';

// `pnpm bench:eval`: the whole offline eval of each shared set, per 1,000 conversations.
const results = await benchmarkEvalSpeed(SHARED_SETS, {
  conversations: benchEnv.evalConversations,
  runs: benchEnv.evalRuns,
});
await mkdir(benchEnv.resultsDir, { recursive: true });
const date = new Date().toISOString();
const file = join(benchEnv.resultsDir, `${date.replace(/[:.]/g, '-')}-eval.json`);
await writeFile(file, `${JSON.stringify({ date, evalSpeed: results }, null, 2)}\n`);
console.log(evalSpeedTable(results));
console.log(`\nresults: ${file}`);
