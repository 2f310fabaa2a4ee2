import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { defaultConfig } from '@memfade/app';
import { benchEnv } from './env.js';
import { ALL_SETS, evaluateSets, type SetResult, setDiff, setTables } from './eval-sets.js';

// `pnpm bench:eval-sets [earlier.json]`: docs/eval/README.md's tables for the offline compressor on
// every set, and, given an earlier run's JSON, what moved since.
const results = await evaluateSets(ALL_SETS, defaultConfig().policy);
await mkdir(benchEnv.resultsDir, { recursive: true });
const date = new Date().toISOString();
const file = join(benchEnv.resultsDir, `${date.replace(/[:.]/g, '-')}-eval-sets.json`);
await writeFile(file, `${JSON.stringify(results)}\n`);
for (const half of ['check', 'tune'] as const)
  console.log(`\n## ${half} half\n\n${setTables(results.filter((r) => r.half === half))}`);
const earlier = process.argv[2];
if (earlier) {
  const moved = setDiff(JSON.parse(await readFile(earlier, 'utf8')) as SetResult[], results);
  console.log(
    `\nSince ${earlier}:\n${moved.length ? moved.map((m) => `- ${m}`).join('\n') : '- nothing moved'}`,
  );
}
console.log(`\nresults: ${file}`);
